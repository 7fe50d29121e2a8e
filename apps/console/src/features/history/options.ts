import { CHANNELS } from '@parley/protocol';
import type { FieldOption } from '../shared/ListPage';

/** The chat channels as the search selects and columns show them. */
export const CHANNEL_OPTIONS: FieldOption[] = CHANNELS.map((channel) => ({ value: channel, label: `records.channel.${channel}` }));

export const SCORE_OPTIONS: FieldOption[] = [5, 4, 3, 2, 1].map((score) => ({ value: score, text: '★'.repeat(score) }));
