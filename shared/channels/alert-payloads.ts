import type { AlertMessage } from './alert-message';
import { slackAlertPayload } from './slack-alert';
import { teamsAlertPayload } from './teams-alert';

/**
 * How each channel of CHANNELS (channels.ts) writes an alert, by its `type`. Apart from the channel's
 * own file so the report's message and the alert do not import each other; a test fails when a
 * channel has no entry here.
 */
export const ALERT_PAYLOADS: Readonly<Record<string, (message: AlertMessage) => unknown>> = {
  slack: slackAlertPayload,
  teams: teamsAlertPayload,
};
