import { Aws, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export interface ExportHttpApiProps {
  readonly logRetention: logs.RetentionDays;
  /** Steady-state requests per second for the whole stage. */
  readonly rateLimit?: number;
  readonly burstLimit?: number;
}

/**
 * Per-route limits of the run-link routes, tighter than the stage's: they are open to anyone with a
 * URL, and a person needs one page load, one press of the button (the POST, the only route that
 * starts an export) and a poll every few seconds. The handler's own per-token start limit and
 * one-export-per-report rule sit behind these.
 */
export const RUN_LINK_THROTTLE = {
  'GET /run/{token}': { rateLimit: 2, burstLimit: 5 },
  'POST /run/{token}': { rateLimit: 2, burstLimit: 5 },
  'GET /run/{token}/status': { rateLimit: 5, burstLimit: 10 },
  'GET /run/{token}/download': { rateLimit: 5, burstLimit: 10 },
  // A recipient's unsubscribe link: the page, and the one-click POST of a mail client (RFC 8058).
  'GET /unsubscribe/{token}': { rateLimit: 2, burstLimit: 5 },
  'POST /unsubscribe/{token}': { rateLimit: 2, burstLimit: 5 },
} as const;

/**
 * The HTTP API: `POST /exports` and `GET /exports/{id}` behind IAM (SigV4); `GET /links/{token}` and
 * the run-link routes (RUN_LINK_THROTTLE) open because the signed token in the path is the
 * credential (e-mail recipients and people with a run link have no AWS identity). Routes are added with `addRoutes` once the handler exists, so the API (and its URL)
 * can be created before the functions that need the URL in their environment.
 */
export class ExportHttpApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;
  /**
   * `https://<api-id>.execute-api.<region>.<suffix>` (no trailing slash): built from the API id only,
   * so a function can have it in its environment without depending on the stage, routes or
   * integration — that would be a cycle, since the integration depends on the function.
   */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ExportHttpApiProps) {
    super(scope, id);

    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'planning-report-exporter: start exports, read their status, follow e-mail links',
      // The default stage is created below with throttling and access logs.
      createDefaultStage: false,
    });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.rateLimit ?? 10, burstLimit: props.burstLimit ?? 20 },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        // $context.routeKey, never $context.path: the path of /links/{token} is the token, and
        // anyone who can read the access logs could otherwise download the linked files.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            sourceIp: '$context.identity.sourceIp',
            userAgent: '$context.identity.userAgent',
            caller: '$context.identity.userArn',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationStatus: '$context.integrationStatus',
            error: '$context.error.message',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    this.url = Fn.join('', ['https://', this.api.apiId, '.execute-api.', Aws.REGION, '.', Aws.URL_SUFFIX]);
  }

  addRoutes(handler: lambda.IFunction): void {
    const integration = new HttpLambdaIntegration('Handler', handler, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    });
    const iam = new HttpIamAuthorizer();
    this.api.addRoutes({ path: '/exports', methods: [apigw.HttpMethod.POST], integration, authorizer: iam });
    this.api.addRoutes({ path: '/exports/{id}', methods: [apigw.HttpMethod.GET], integration, authorizer: iam });
    const [linkRoute] = this.api.addRoutes({
      path: '/links/{token}',
      methods: [apigw.HttpMethod.GET],
      integration,
      authorizer: new apigw.HttpNoneAuthorizer(),
    });
    if (linkRoute === undefined) throw new Error('addRoutes returned no route for GET /links/{token}');
    Validations.of(linkRoute).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'GET /links/{token} is opened by e-mail recipients without AWS credentials; it is protected by an HMAC token (signed, expiring, bound to one file) that the handler verifies before presigning a short-lived S3 URL.',
    });
    const runRoutes = Object.keys(RUN_LINK_THROTTLE).map((routeKey) => {
      const [method = '', path = ''] = routeKey.split(' ');
      const [route] = this.api.addRoutes({ path, methods: [method as apigw.HttpMethod], integration, authorizer: new apigw.HttpNoneAuthorizer() });
      if (route === undefined) throw new Error(`addRoutes returned no route for ${routeKey}`);
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: routeKey.includes('/unsubscribe/')
          ? `${routeKey} is opened by e-mail recipients and their mail clients (RFC 8058 one-click) without AWS credentials; it is protected by an HMAC unsubscribe token (signed, expiring, bound to one report and one recipient) that the handler verifies, with route throttling.`
          : `${routeKey} is opened by people without AWS credentials; it is protected by an HMAC run-link token (signed, expiring, revocable, bound to one configured report) that the handler verifies, with a per-token start limit and route throttling.`,
      });
      return route;
    });
    // Route-level throttling lives on the stage; a route setting for a route that does not exist
    // yet fails the deployment, so the stage waits for the routes.
    const cfnStage = this.stage.node.defaultChild as apigw.CfnStage;
    cfnStage.routeSettings = Object.fromEntries(
      Object.entries(RUN_LINK_THROTTLE).map(([routeKey, limit]) => [
        routeKey,
        { ThrottlingRateLimit: limit.rateLimit, ThrottlingBurstLimit: limit.burstLimit },
      ]),
    );
    for (const route of runRoutes) cfnStage.addResourceDependency(route.node.defaultChild as apigw.CfnRoute);
  }
}
