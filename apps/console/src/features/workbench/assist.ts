import type { RobotAssist } from '@parley/protocol';
import { create } from 'zustand';

/** A suggested answer offered for a conversation, and whether the agent put it in the reply. */
export interface AssistOffer extends RobotAssist {
  inserted: boolean;
}

interface AssistState {
  /** The latest suggestion per conversation (by the visitor's public id). */
  offers: Record<string, AssistOffer>;
  offer(assist: RobotAssist): void;
  markInserted(token: string): void;
  /** Sets the suggestion aside: sent, or dismissed by the agent. */
  drop(token: string): void;
}

/**
 * Agent assist (8016): the robot's answer to a visitor's latest question it recognised, offered to the
 * conversation's agent beside the reply box. A newer suggestion replaces the one before.
 */
export const useAssist = create<AssistState>((set) => ({
  offers: {},
  offer: (assist) => set((state) => ({ offers: { ...state.offers, [assist.YQToken]: { ...assist, inserted: false } } })),
  markInserted: (token) =>
    set((state) => {
      const held = state.offers[token];
      return held ? { offers: { ...state.offers, [token]: { ...held, inserted: true } } } : state;
    }),
  drop: (token) =>
    set((state) => {
      if (!state.offers[token]) return state;
      const { [token]: _dropped, ...rest } = state.offers;
      return { offers: rest };
    }),
}));
