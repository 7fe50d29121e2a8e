import type { Generated } from 'kysely';

/**
 * Column conventions shared by SQLite and PostgreSQL: times are ISO 8601 UTC text (sortable and
 * comparable as text on both), booleans are 0/1 integers, lists are JSON text.
 */
export interface RolesTable {
  id: Generated<number>;
  name: string;
  permissions: string;
  builtin: number;
  created_at: string;
}

export interface AgentsTable {
  id: Generated<number>;
  uuid: string;
  username: string;
  nickname: string;
  avatar: string;
  password_hash: string;
  role_id: number;
  state: string;
  max_chats: number;
  disabled: number;
  /** 1 while a self-registered account waits for an administrator to enable it. */
  pending: number;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  agent_id: number;
  token_hash: string;
  expires_at: string;
  refresh_until: string;
  revoked: number;
  created_at: string;
}

export interface LoginLogTable {
  id: Generated<number>;
  username: string;
  agent_id: number | null;
  ip: string;
  user_agent: string;
  result: string;
  reason: string;
  /** 1 when the attempt counts toward the failed-login limit. */
  counted: number;
  created_at: string;
}

export interface Database {
  roles: RolesTable;
  agents: AgentsTable;
  sessions: SessionsTable;
  login_log: LoginLogTable;
}
