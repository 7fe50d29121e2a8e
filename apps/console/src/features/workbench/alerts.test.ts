import { describe, expect, it } from 'vitest';
import { type DesktopDefaults, effectiveAlerts } from './alerts';

const TEAM: DesktopDefaults = { newUserSound: true, newMsgSound: false, notifyNewUser: true, notifyNewMsg: false, titleBlink: true };

describe('effectiveAlerts', () => {
  it("follows the team's defaults when the agent chose nothing", () => {
    expect(effectiveAlerts(TEAM, undefined, {})).toEqual(TEAM);
    expect(effectiveAlerts(TEAM, { newUser: null, newMsg: null, sound: null }, {})).toEqual(TEAM);
  });

  it("lets the agent's personal choices override the team's, the sound switch standing for both sounds", () => {
    expect(effectiveAlerts(TEAM, { newUser: false, newMsg: true, sound: false }, {})).toEqual({
      newUserSound: false,
      newMsgSound: false,
      notifyNewUser: false,
      notifyNewMsg: true,
      titleBlink: true,
    });
    expect(effectiveAlerts(TEAM, { sound: true }, {})).toMatchObject({ newUserSound: true, newMsgSound: true, notifyNewUser: true });
  });

  it('lets a switch set in this browser win over both', () => {
    expect(effectiveAlerts(TEAM, { newUser: false, sound: false }, { newUser: true, sound: true, newMsg: false })).toEqual({
      newUserSound: true,
      newMsgSound: true,
      notifyNewUser: true,
      notifyNewMsg: false,
      titleBlink: true,
    });
  });

  it("keeps the title blink the team's choice", () => {
    const quiet = { ...TEAM, titleBlink: false };
    expect(effectiveAlerts(quiet, { newUser: true, newMsg: true, sound: true }, { sound: true }).titleBlink).toBe(false);
  });
});
