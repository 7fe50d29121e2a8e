import { settingsSchemas } from '@parley/protocol';
import { describe, expect, it } from 'vitest';
import { checkPage } from './validate';

describe('checkPage', () => {
  it('accepts the defaults and fills what the form left out', () => {
    const checked = checkPage(settingsSchemas.takeIcon, { pc: { color: '#aa3366' } });
    expect(checked.problems.size).toBe(0);
    expect(checked.value?.pc.color).toBe('#aa3366');
    expect(checked.value?.mobile.style).toBe('bubble');
  });

  it('names a refused nested value by its dotted path, with the message key the form shows', () => {
    const checked = checkPage(settingsSchemas.takeIcon, { pc: { color: 'red' } });
    expect(checked.value).toBeUndefined();
    expect(checked.problems.get('pc.color')).toEqual({ key: 'kit.format' });
  });

  it('names a value inside a list by its place in the list', () => {
    const checked = checkPage(settingsSchemas.windowSetting, {
      workHours: {
        days: [
          { day: 1, from: '09:00', to: '18:00' },
          { day: 2, from: '9', to: '18:00' },
        ],
      },
      maxLength: 0,
    });
    expect(checked.problems.get('workHours.days.1.from')).toEqual({ key: 'kit.format' });
    expect(checked.problems.get('maxLength')).toEqual({ key: 'kit.min', values: { min: 1 } });
  });

  it('reports a rule over several fields on the field it names', () => {
    const checked = checkPage(settingsSchemas.windowSetting, { preChat: { enabled: true, fields: ['name'], required: ['phone'] } });
    expect(checked.problems.has('preChat.required')).toBe(true);
  });

  it('asks for the agent of a region rule that assigns, on the agent field', () => {
    const rules = [{ codes: ['330000'], action: 'assign' }];
    expect(checkPage(settingsSchemas.region, { rules }).problems.get('rules.0.serviceID')).toEqual({ key: 'kit.required' });
    const named = [{ ...rules[0], serviceID: '6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f' }];
    expect(checkPage(settingsSchemas.region, { rules: named }).problems.size).toBe(0);
  });
});
