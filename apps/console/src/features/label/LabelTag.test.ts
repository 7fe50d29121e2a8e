import { describe, expect, it } from 'vitest';
import { textOn } from './LabelTag';

describe('textOn', () => {
  it('writes white on the dark colours and near-black on the light ones', () => {
    for (const dark of ['#cf1322', '#0958d9', '#531dab', '#000000', '#595959']) expect(textOn(dark)).toBe('#ffffff');
    for (const light of ['#ffff00', '#ffffff', '#a0d911', '#91caff']) expect(textOn(light)).toBe('#1f1f1f');
  });
});
