import { randomUUID } from 'node:crypto';
import {
  AGENT_ROLE,
  type Agent,
  type AgentPresence,
  type AgentState,
  grantable,
  type ListData,
  type serviceEditBody,
  type serviceListQuery,
} from '@parley/protocol';
import type { z } from 'zod';
import type { Db, DbOrTx } from '../../db/index.js';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { ApiError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { assertUncommonPassword, hashPassword } from '../../lib/password.js';
import { isoNow } from '../../lib/time.js';
import { ValidationError } from '../../lib/validate.js';
import { AgentPresenceStore } from '../../realtime/presence.js';
import type { AuditLog } from '../audit/audit-log.js';
import { type AuthService, permissionsOf } from '../auth/service.js';
import type { Notices } from '../notices/service.js';
import type { RoleRepository } from '../roles/repository.js';
import type { AgentRepository } from './repository.js';

type AgentListRow = Awaited<ReturnType<AgentRepository['list']>>['rows'][number];

export const DEFAULT_MAX_CHATS = 10;

/** 403 unless the actor may give this role, or manage an account that holds it. */
function assertGrantable(actor: AuthContext, role: { name: string; permissions: string }): void {
  if (!grantable(actor, { roles: [role.name], permissions: permissionsOf(role.name, role.permissions) })) {
    throw new ApiError(403, 'notGrantable');
  }
}

/** What others see: a connected console shows the availability its agent chose; no console is offline. */
function presenceOf(row: AgentListRow): AgentPresence {
  if (!row.present) return 'offline';
  return row.state === '1' ? 'hidden' : 'online';
}

function toAgent(row: AgentListRow): Agent {
  const state: AgentState = row.state === '1' ? '1' : '0';
  return {
    id: row.id,
    uuid: row.uuid,
    username: row.username,
    nickname: row.nickname,
    avatar: row.avatar,
    roleId: row.role_id,
    roleName: row.role_name,
    state,
    presence: presenceOf(row),
    maxChats: row.max_chats,
    disabled: row.disabled === 1,
    pending: row.pending === 1,
    created_at: row.created_at,
  };
}

/** Agents: accounts of the console, with the rules that keep at least one administrator. */
export class AgentService {
  constructor(
    private readonly db: Db,
    private readonly repo: AgentRepository,
    private readonly roles: RoleRepository,
    private readonly auth: AuthService,
    private readonly audit: AuditLog,
    private readonly notices: Notices,
  ) {}

  async list(query: z.output<typeof serviceListQuery>): Promise<ListData<Agent>> {
    const filter = {
      username: query.username || undefined,
      roleId: query.roleId,
      disabled: query.disabled === undefined ? undefined : query.disabled === 'true',
    };
    const { rows, total } = await this.repo.list(filter, query, AgentPresenceStore.freshSince());
    return { list: rows.map(toAgent), total };
  }

  async save(input: z.output<typeof serviceEditBody>, actor: AuthContext, who: AuditActor): Promise<{ id: number }> {
    if (input.password !== undefined) assertUncommonPassword(input.password);
    const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password);
    const revoke: number[] = [];
    // A password set for someone else is told to them: in their notices, and by mail after the commit.
    let resetMailTo = '';
    const id = await this.db.transaction().execute(async (tx) => {
      const role = await this.roles.findById(tx, input.roleId);
      if (!role) throw new ValidationError('roleId', 'reasonMissing', {});
      assertGrantable(actor, role);
      const sameName = await this.repo.findIdByUsername(tx, input.username);
      if (input.id === undefined) {
        if (sameName) throw conflict('usernameTaken');
        if (!passwordHash) throw badRequest('passwordRequired');
        const created = await this.repo.insert(tx, {
          uuid: randomUUID(),
          username: input.username,
          nickname: input.nickname,
          avatar: input.avatar ?? '',
          password_hash: passwordHash,
          role_id: role.id,
          max_chats: input.maxChats ?? DEFAULT_MAX_CHATS,
          disabled: input.disabled ? 1 : 0,
          pending: 0,
          created_at: isoNow(),
        });
        await this.audit.record(tx, {
          ...who,
          action: 'agent.create',
          target: `agent:${input.username}`,
          detail: { id: created, role: role.name, disabled: input.disabled ?? false },
        });
        return created;
      }
      const current = await this.repo.findById(tx, input.id);
      if (!current) throw notFound('agentMissing');
      const currentRole = await this.roles.findById(tx, current.role_id);
      if (currentRole) assertGrantable(actor, currentRole);
      if (sameName && sameName.id !== current.id) throw conflict('usernameTaken');
      const disabled = input.disabled ?? current.disabled === 1;
      if (disabled && current.id === actor.agentId) throw conflict('cannotDisableSelf');
      await this.repo.update(tx, current.id, {
        username: input.username,
        nickname: input.nickname,
        ...(input.avatar === undefined ? {} : { avatar: input.avatar }),
        ...(passwordHash ? { password_hash: passwordHash, password_change_required: 0 } : {}),
        role_id: role.id,
        ...(input.maxChats === undefined ? {} : { max_chats: input.maxChats }),
        disabled: disabled ? 1 : 0,
        // An administrator who touches a self-registered account has decided about it.
        pending: disabled && current.pending === 1 ? 1 : 0,
        updated_at: isoNow(),
      });
      await this.recordUpdate(tx, who, current, { ...input, roleName: role.name, disabled, passwordReset: passwordHash !== undefined });
      await this.keepAnAdmin(tx);
      if (passwordHash && current.id !== actor.agentId) {
        await this.notices.toAgent(tx, current.id, 'passwordReset', { actor: actor.username });
        resetMailTo = await this.repo.findEmail(tx, current.id);
      }
      if (passwordHash || (disabled && current.disabled === 0)) revoke.push(current.id);
      return current.id;
    });
    this.notices.mailTo(resetMailTo, 'passwordReset', { actor: actor.username });
    for (const agentId of revoke) await this.auth.revokeAgent(agentId);
    return { id };
  }

  async remove(ids: number[], actor: AuthContext, who: AuditActor): Promise<void> {
    if (ids.includes(actor.agentId)) throw conflict('cannotDeleteSelf');
    await this.db.transaction().execute(async (tx) => {
      for (const role of await this.roles.findOfAgents(tx, ids)) assertGrantable(actor, role);
      const named = await this.repo.findNames(tx, ids);
      await this.repo.deleteMany(tx, ids);
      for (const agent of named) {
        await this.audit.record(tx, { ...who, action: 'agent.delete', target: `agent:${agent.username}`, detail: { id: agent.id } });
      }
      await this.keepAnAdmin(tx);
    });
    for (const agentId of ids) await this.auth.revokeAgent(agentId);
  }

  /**
   * Creates an account that stays disabled until an administrator enables it. The audit log names the
   * newcomer as its own actor: nobody signed in made the change.
   */
  async register(input: { username: string; password: string; nickname?: string | undefined }, ip: string): Promise<{ id: number }> {
    assertUncommonPassword(input.password);
    const passwordHash = await hashPassword(input.password);
    const id = await this.db.transaction().execute(async (tx) => {
      if (await this.repo.findIdByUsername(tx, input.username)) throw conflict('usernameTaken');
      const role = await this.roles.findByName(tx, AGENT_ROLE);
      if (!role) throw conflict('roleMissing');
      const created = await this.repo.insert(tx, {
        uuid: randomUUID(),
        username: input.username,
        nickname: input.nickname || input.username,
        avatar: '',
        password_hash: passwordHash,
        role_id: role.id,
        max_chats: DEFAULT_MAX_CHATS,
        disabled: 1,
        pending: 1,
        created_at: isoNow(),
      });
      await this.audit.record(tx, {
        actor: input.username,
        actorId: created,
        ip,
        action: 'agent.create',
        target: `agent:${input.username}`,
        detail: { id: created, role: role.name, disabled: true, registered: true },
      });
      return created;
    });
    return { id };
  }

  /**
   * The audit rows of an edited account: which of its fields changed (`agent.update`), whether it was
   * enabled or disabled, and whether its password was reset (never the password itself).
   */
  private async recordUpdate(
    tx: DbOrTx,
    who: AuditActor,
    before: NonNullable<Awaited<ReturnType<AgentRepository['findById']>>>,
    after: z.output<typeof serviceEditBody> & { roleName: string; disabled: boolean; passwordReset: boolean },
  ): Promise<void> {
    const target = `agent:${after.username}`;
    const id = before.id;
    const fields: string[] = [];
    if (after.username !== before.username) fields.push('username');
    if (after.nickname !== before.nickname) fields.push('nickname');
    if (after.avatar !== undefined && after.avatar !== before.avatar) fields.push('avatar');
    if (after.roleId !== before.role_id) fields.push('role');
    if (after.maxChats !== undefined && after.maxChats !== before.max_chats) fields.push('maxChats');
    if (fields.length > 0) {
      const detail: Record<string, unknown> = { id, fields };
      if (fields.includes('username')) detail.renamedFrom = before.username;
      if (fields.includes('role')) detail.role = { from: before.role_name, to: after.roleName };
      await this.audit.record(tx, { ...who, action: 'agent.update', target, detail });
    }
    if (after.disabled !== (before.disabled === 1)) {
      await this.audit.record(tx, { ...who, action: after.disabled ? 'agent.disable' : 'agent.enable', target, detail: { id } });
    }
    if (after.passwordReset) await this.audit.record(tx, { ...who, action: 'agent.resetPassword', target, detail: { id } });
  }

  /** Runs inside the transaction of a change: undoes it when no enabled administrator would be left. */
  private async keepAnAdmin(tx: DbOrTx): Promise<void> {
    if ((await this.repo.countEnabledAdmins(tx)) === 0) throw conflict('lastAdmin');
  }
}
