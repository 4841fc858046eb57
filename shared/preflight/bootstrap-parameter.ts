/** The parameter `cdk bootstrap` writes with the default qualifier: the bootstrap stack's version. */
export const BOOTSTRAP_VERSION_PARAMETER = '/cdk-bootstrap/hnb659fds/version';
