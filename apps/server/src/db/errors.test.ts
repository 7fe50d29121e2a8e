import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './errors.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises PostgreSQL ending or refusing connections, network failures and connect timeouts', () => {
    for (const error of [
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P02'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      withCode('08P01'),
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('wrapped', { cause: withCode('ECONNREFUSED') }),
    ]) {
      expect(isDatabaseUnavailable(error), String((error as { code?: string }).code ?? error.message)).toBe(true);
    }
  });

  it('leaves every other error a server error', () => {
    for (const error of [
      withCode('23505'),
      withCode('42P01'),
      withCode('SQLITE_CONSTRAINT_UNIQUE'),
      new Error('boom'),
      'text',
      null,
      undefined,
    ]) {
      expect(isDatabaseUnavailable(error)).toBe(false);
    }
  });
});
