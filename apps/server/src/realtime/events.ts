/**
 * Everything one server process tells the others (and itself) through the bus. Events carry ids,
 * not secrets: a socket holder looks up what it needs.
 */
export type BusEvent =
  | { type: 'sessions.revoked'; agentId: number; sessionIds: number[] | 'all' }
  | { type: 'sessions.renewed'; agentId: number; from: number; to: number }
  | { type: 'agent.state'; uuid: string; state: string };
