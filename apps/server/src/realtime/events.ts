import type { KnownFrame } from '@parley/protocol';

/**
 * Everything one server process tells the others (and itself) through the bus. Frames are addressed
 * when published, after the permission check, so a process only delivers what it is handed.
 */
export type BusEvent =
  | { type: 'sessions.revoked'; agentId: number; sessionIds: number[] | 'all' }
  | { type: 'sessions.renewed'; agentId: number; from: number; to: number }
  /**
   * To the sockets of the listed agents (by uuid), or of every agent; with `supervisors`, that frame also
   * to every other supervisor's (who lists every conversation, another agent's included).
   */
  | { type: 'frame.agents'; to: string[] | 'all'; frame: KnownFrame; supervisors?: KnownFrame }
  /** To every socket (every tab) of one visitor; `token` is the visitor's public id, never its credential. */
  | { type: 'frame.visitor'; token: string; frame: KnownFrame }
  /** The visitor with this public id was erased: its sockets, wherever held, are closed. */
  | { type: 'visitor.erased'; token: string }
  /** A chat-window settings page was saved: every process reads it again and pushes its widgets' settings. */
  /** `origin`: the saving process's settings service, which took the page already. */
  | { type: 'settings.changed'; page: string; origin?: string }
  /**
   * The robot's pairs or settings were saved: every process updates those pairs in its index (all of it
   * without `ids`) or reads the settings again.
   */
  | { type: 'robots.changed'; what: 'pairs' | 'high'; ids?: number[] }
  /** A webhook was made, changed, deleted or disabled: every process reads the enabled ones again. */
  | { type: 'webhooks.changed' }
  /** Webhook events were queued: the worker processes (`WEBHOOK_DELIVERY=worker`) look for them now. */
  | { type: 'webhooks.queued' }
  /** A Web Push device was added or went: who has devices is read again. */
  | { type: 'push.changed' }
  /** Who monitors this visitor (by row id) changed: every process reads it again on the next message. */
  | { type: 'monitors.changed'; visitorId: number }
  /**
   * The statistics' rollup counted the site days `first..last` again from the raw tables, in the process
   * `by`: the others forget or drop again the days they dropped (CensusRecorder).
   */
  | { type: 'census.counted'; first: string; last: string; by: string };
