import type { Channel } from './channel';
import { slackChannel } from './slack';
import { teamsChannel } from './teams';

/** Every chat channel a definition may name. A new channel: its file, and its entry here. */
export const CHANNELS: readonly Channel[] = [slackChannel, teamsChannel];

export function channelOf(type: string): Channel | undefined {
  return CHANNELS.find((c) => c.type === type);
}
