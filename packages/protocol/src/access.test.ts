import { describe, expect, it } from 'vitest';
import { grantable } from './access.js';

describe('grantable', () => {
  const manager = { roles: ['Staff'], permissions: ['setPermissions:service', 'seePermissions:statistics'] };

  it('lets an administrator give anything, the Admin role included', () => {
    const admin = { roles: ['Admin'], permissions: [] };
    expect(grantable(admin, { roles: ['Admin'], permissions: ['setPermissions:access'] })).toBe(true);
  });

  it('lets anyone else give only permissions they hold', () => {
    expect(grantable(manager, { roles: ['Staff'], permissions: ['setPermissions:service'] })).toBe(true);
    expect(grantable(manager, { roles: ['Other'], permissions: [] })).toBe(true);
    expect(grantable(manager, { roles: ['Other'], permissions: ['setPermissions:service', 'setPermissions:access'] })).toBe(false);
  });

  it('never lets a non-Admin give or touch the Admin role, even holding every permission', () => {
    const everything = { roles: ['Almost'], permissions: ['setPermissions:service', 'setPermissions:roleManagement'] };
    expect(grantable(everything, { roles: ['Admin'], permissions: [] })).toBe(false);
  });
});
