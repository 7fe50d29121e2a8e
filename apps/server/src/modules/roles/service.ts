import { grantable, type ListData, type Role, type roleEditBody, type roleListQuery } from '@parley/protocol';
import type { z } from 'zod';
import type { Db } from '../../db/index.js';
import type { AuditActor, AuthContext } from '../../lib/caller.js';
import { ApiError, conflict, notFound } from '../../lib/errors.js';
import { isoNow } from '../../lib/time.js';
import type { AuditLog } from '../audit/audit-log.js';
import { permissionsOf } from '../auth/service.js';
import type { RoleRepository } from './repository.js';

/** 403 unless the actor holds everything the role holds (and only an administrator touches Admin). */
function assertGrantable(actor: AuthContext, name: string, permissions: string[]): void {
  if (!grantable(actor, { roles: [name], permissions })) throw new ApiError(403, 'notGrantable');
}

/** Roles: named sets of permissions. The built-in ones keep their names and cannot be deleted. */
export class RoleService {
  constructor(
    private readonly db: Db,
    private readonly repo: RoleRepository,
    private readonly audit: AuditLog,
  ) {}

  async list(query: z.output<typeof roleListQuery>): Promise<ListData<Role>> {
    const { rows, total } = await this.repo.list(query.name || query.role || undefined, query);
    return {
      list: rows.map((row) => ({
        id: row.id,
        name: row.name,
        permissions: permissionsOf(row.name, row.permissions),
        builtin: row.builtin === 1,
        agents: Number(row.agents ?? 0),
        created_at: row.created_at,
      })),
      total,
    };
  }

  async save(input: z.output<typeof roleEditBody>, actor: AuthContext, who: AuditActor): Promise<{ id: number }> {
    const wanted = [...new Set(input.permissions)];
    assertGrantable(actor, input.name, wanted);
    const permissions = JSON.stringify(wanted);
    const id = await this.db.transaction().execute(async (tx) => {
      const sameName = await this.repo.findByName(tx, input.name);
      if (input.id === undefined) {
        if (sameName) throw conflict('roleNameTaken');
        const created = await this.repo.insert(tx, { name: input.name, permissions, builtin: 0, created_at: isoNow() });
        await this.audit.record(tx, {
          ...who,
          action: 'role.create',
          target: `role:${input.name}`,
          detail: { id: created, permissions: wanted },
        });
        return created;
      }
      const current = await this.repo.findById(tx, input.id);
      if (!current) throw notFound('roleMissing');
      assertGrantable(actor, current.name, permissionsOf(current.name, current.permissions));
      if (sameName && sameName.id !== current.id) throw conflict('roleNameTaken');
      if (current.builtin === 1 && current.name !== input.name) throw conflict('builtinRole');
      await this.repo.update(tx, current.id, { name: input.name, permissions });
      const held = permissionsOf(current.name, current.permissions);
      const detail: Record<string, unknown> = { id: current.id };
      if (current.name !== input.name) detail.renamedFrom = current.name;
      const granted: readonly string[] = wanted;
      const added = granted.filter((permission) => !held.includes(permission));
      const removed = held.filter((permission) => !granted.includes(permission));
      if (added.length > 0) detail.added = added;
      if (removed.length > 0) detail.removed = removed;
      await this.audit.record(tx, { ...who, action: 'role.update', target: `role:${input.name}`, detail });
      return current.id;
    });
    return { id };
  }

  async remove(ids: number[], actor: AuthContext, who: AuditActor): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const roles = await this.repo.findMany(tx, ids);
      for (const role of roles) assertGrantable(actor, role.name, permissionsOf(role.name, role.permissions));
      if (roles.some((role) => role.builtin === 1)) throw conflict('builtinRole');
      if ((await this.repo.countAgents(tx, ids)) > 0) throw conflict('roleInUse');
      await this.repo.deleteMany(tx, ids);
      for (const role of roles) {
        const detail = { id: role.id, permissions: permissionsOf(role.name, role.permissions) };
        await this.audit.record(tx, { ...who, action: 'role.delete', target: `role:${role.name}`, detail });
      }
    });
  }
}
