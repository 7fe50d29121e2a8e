/**
 * The workbench's notification sounds, made here as short WAV tones so that nothing binary needs to
 * ship: a rising two-note chime for a new visitor, a single soft note for a new message.
 */
function tone(notes: { hz: number; ms: number }[]): Buffer {
  const rate = 22050;
  const samples: number[] = [];
  for (const note of notes) {
    const count = Math.round((rate * note.ms) / 1000);
    for (let i = 0; i < count; i += 1) {
      const fade = Math.min(1, i / (rate * 0.01), (count - i) / (rate * 0.06));
      samples.push(Math.sin((2 * Math.PI * note.hz * i) / rate) * 0.35 * fade);
    }
  }
  const data = Buffer.alloc(samples.length * 2);
  for (const [index, sample] of samples.entries()) data.writeInt16LE(Math.round(sample * 32767), index * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

export const SOUNDS: Record<string, Buffer> = {
  'visitor.wav': tone([
    { hz: 660, ms: 140 },
    { hz: 880, ms: 220 },
  ]),
  'message.wav': tone([{ hz: 740, ms: 180 }]),
};
