import { describe, expect, it } from 'vitest';
import { type DesktopDefaults, effectiveAlerts } from './alerts';

const TEAM: DesktopDefaults = {
  newUserSound: '/sounds/visitor.wav',
  newMsgSound: '',
  notifyNewUser: true,
  notifyNewMsg: false,
  notifyTransfer: true,
  notifyLetter: true,
  titleBlink: true,
};
/** What the workbench does of the team's page: transfers and leave-messages are pushed, not alerted here. */
const { notifyTransfer: _transfer, notifyLetter: _letter, ...TEAM_ALERTS } = TEAM;

describe('effectiveAlerts', () => {
  it("follows the team's defaults when the agent chose nothing", () => {
    expect(effectiveAlerts(TEAM, undefined, {})).toEqual(TEAM_ALERTS);
    expect(effectiveAlerts(TEAM, { newUser: null, newMsg: null, sound: null }, {})).toEqual(TEAM_ALERTS);
  });

  it("lets the agent's personal choices override the team's; the sound switch silences both sounds", () => {
    expect(effectiveAlerts(TEAM, { newUser: false, newMsg: true, sound: false }, {})).toEqual({
      newUserSound: '',
      newMsgSound: '',
      notifyNewUser: false,
      notifyNewMsg: true,
      titleBlink: true,
    });
    // Sound on plays the team's sounds: a sound the team left empty stays silent.
    expect(effectiveAlerts(TEAM, { newUser: true, newMsg: true, sound: true }, {})).toMatchObject({
      newUserSound: '/sounds/visitor.wav',
      newMsgSound: '',
    });
  });

  it('lets a switch set in this browser win over both', () => {
    expect(effectiveAlerts(TEAM, { newUser: false, newMsg: true, sound: false }, { newUser: true, newMsg: false, sound: true })).toEqual({
      newUserSound: '/sounds/visitor.wav',
      newMsgSound: '',
      notifyNewUser: true,
      notifyNewMsg: false,
      titleBlink: true,
    });
    expect(effectiveAlerts(TEAM, undefined, { sound: false })).toMatchObject({ newUserSound: '', notifyNewUser: true });
  });

  it("keeps the title blink the team's choice", () => {
    const quiet = { ...TEAM, titleBlink: false };
    expect(effectiveAlerts(quiet, { newUser: true, newMsg: true, sound: true }, { sound: true }).titleBlink).toBe(false);
  });
});
