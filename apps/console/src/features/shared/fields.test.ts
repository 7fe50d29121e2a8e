import { friendlyEditBody, serviceEditBody, settingsSchemas } from '@parley/protocol';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { bodyValue, checkField, type Field, factsOf, fieldFacts, schemaAt, searchFilters } from './fields';

describe('fieldFacts', () => {
  it('reads required, lengths and bounds from the protocol schema', () => {
    expect(fieldFacts(serviceEditBody, 'username')).toMatchObject({ required: true, maxLength: 64 });
    expect(fieldFacts(serviceEditBody, 'password')).toMatchObject({ required: false, maxLength: 128 });
    expect(fieldFacts(serviceEditBody, 'maxChats')).toMatchObject({ required: false, min: 1, max: 100 });
    expect(fieldFacts(friendlyEditBody, 'email')).toMatchObject({ required: false, maxLength: 254 });
    expect(fieldFacts(friendlyEditBody, 'nothing')).toEqual({ required: false });
  });
});

describe('schemaAt and factsOf', () => {
  it('bound a field deep in a settings page as the list kit bounds a form field', () => {
    const at = (page: keyof typeof settingsSchemas, ...path: (string | number)[]) => factsOf(schemaAt(settingsSchemas[page], path));
    expect(at('takeIcon', 'pc', 'bottom')).toMatchObject({ required: false, min: 0, max: 2000, integer: true });
    expect(at('takeIcon', 'mobile', 'text')).toMatchObject({ maxLength: 32 });
    expect(at('invitationBox', 'pc', 'text')).toMatchObject({ maxLength: 500 });
    expect(at('floatNavigation', 'items', 3, 'title')).toMatchObject({ required: true, maxLength: 32 });
    expect(at('region', 'rules', 0, 'codes')).toMatchObject({ required: true });
    expect(at('region', 'rules', 0, 'serviceID')).toMatchObject({ required: false });
    expect(at('quickReply', 'groups', 0, 'items', 1, 'content')).toMatchObject({ required: true, maxLength: 2000 });
    expect(at('softwareSetting', 'smtp', 'port')).toMatchObject({ required: true, min: 1, max: 65535 });
  });

  it('know nothing of a place the schema does not have', () => {
    expect(schemaAt(settingsSchemas.softwareSetting, ['smtpEnabled'])).toBeUndefined();
    expect(schemaAt(settingsSchemas.takeIcon, ['pc', 0])).toBeUndefined();
    expect(factsOf(undefined)).toEqual({ required: false });
  });
});

describe('checkField', () => {
  it('names what the server would refuse, as an i18n key', () => {
    expect(checkField(serviceEditBody, 'username', '')).toEqual({ key: 'kit.required' });
    expect(checkField(serviceEditBody, 'username', '   ')).toEqual({ key: 'kit.required' });
    expect(checkField(serviceEditBody, 'username', undefined)).toEqual({ key: 'kit.required' });
    expect(checkField(serviceEditBody, 'username', 'a'.repeat(65))).toEqual({ key: 'kit.maxLength', values: { max: 64 } });
    expect(checkField(serviceEditBody, 'username', 'two words')).toEqual({ key: 'kit.format' });
    expect(checkField(serviceEditBody, 'password', 'short')).toEqual({ key: 'kit.minLength', values: { min: 12 } });
    expect(checkField(serviceEditBody, 'maxChats', 0)).toEqual({ key: 'kit.min', values: { min: 1 } });
    expect(checkField(friendlyEditBody, 'email', 'nobody')).toEqual({ key: 'kit.format' });
    expect(checkField(friendlyEditBody, 'name', 'a\u0007b')).toEqual({ key: 'kit.controlCharacters' });
  });

  it('lets through what the server takes, an emptied optional field included', () => {
    expect(checkField(serviceEditBody, 'username', 'agent.one')).toBeUndefined();
    expect(checkField(serviceEditBody, 'password', '')).toBeUndefined();
    expect(checkField(friendlyEditBody, 'email', '')).toBeUndefined();
    expect(checkField(friendlyEditBody, 'email', 'a@example.com')).toBeUndefined();
  });

  it('asks for a value the page requires beyond the schema (a new agent needs a password)', () => {
    expect(checkField(serviceEditBody, 'password', '', true)).toEqual({ key: 'kit.required' });
    expect(checkField(serviceEditBody, 'password', 'long-enough-pass', true)).toBeUndefined();
  });
});

describe('bodyValue', () => {
  it('leaves out an emptied field the schema refuses empty, and sends one it takes empty', () => {
    expect(bodyValue(serviceEditBody, 'password', '')).toBeUndefined();
    expect(bodyValue(friendlyEditBody, 'remark', '')).toBe('');
    expect(bodyValue(friendlyEditBody, 'name', 'Ann')).toBe('Ann');
  });
});

describe('searchFilters', () => {
  type Row = { name: string; state: string; createdAt: string };
  const fields: Field<Row>[] = [
    { key: 'name', label: 'x.name', in: ['search'], filter: 'keyword' },
    { key: 'state', label: 'x.state', kind: 'select', in: ['search'] },
    { key: 'createdAt', label: 'x.time', kind: 'date', in: ['search'] },
    { key: 'other', label: 'x.other', in: ['column'] },
  ];

  it('sends trimmed text under its filter name, days as picked, and nothing for empty fields', () => {
    const picked = [dayjs('2026-11-01T23:30:00'), dayjs('2026-11-23T00:15:00')];
    expect(searchFilters(fields, { name: '  Ann ', state: 'unread', createdAt: picked, other: 'x' })).toEqual({
      keyword: 'Ann',
      state: 'unread',
      from: '2026-11-01',
      to: '2026-11-23',
    });
    expect(searchFilters(fields, { name: '   ' })).toEqual({ keyword: undefined, state: undefined, from: undefined, to: undefined });
  });
});
