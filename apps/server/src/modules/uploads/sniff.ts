import { UPLOAD_FILE_TYPES as FILE_TYPES, UPLOAD_IMAGE_TYPES as IMAGE_TYPES } from '@parley/protocol';

export interface Sniffed {
  mime: string;
  extension: string;
  image: boolean;
}

const startsWith = (head: Buffer, bytes: number[], offset = 0) => bytes.every((byte, index) => head[offset + index] === byte);

/**
 * The real type of an upload, from its first bytes (and, for container formats, its name). Anything
 * not positively recognised is refused: an upload never decides its own content type.
 */
export function sniff(head: Buffer, originalName: string): Sniffed | undefined {
  const extension = (/\.([a-z0-9]{1,8})$/i.exec(originalName)?.[1] ?? '').toLowerCase();
  let found: { mime: string; extension: string } | undefined;
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) found = { mime: 'image/png', extension: 'png' };
  else if (startsWith(head, [0xff, 0xd8, 0xff])) found = { mime: 'image/jpeg', extension: 'jpg' };
  else if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a')
    found = { mime: 'image/gif', extension: 'gif' };
  else if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    found = { mime: 'image/webp', extension: 'webp' };
  else if (head.subarray(0, 5).toString('latin1') === '%PDF-') found = { mime: 'application/pdf', extension: 'pdf' };
  else if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) {
    if (extension === 'docx') found = { mime: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension };
    else if (extension === 'xlsx') found = { mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension };
    else found = { mime: 'application/zip', extension: 'zip' };
  } else if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    if (extension === 'doc') found = { mime: 'application/msword', extension };
    else if (extension === 'xls') found = { mime: 'application/vnd.ms-excel', extension };
  } else if (extension === 'txt' && !head.includes(0)) {
    found = { mime: 'text/plain', extension: 'txt' };
  }
  if (!found) return undefined;
  const image = IMAGE_TYPES.includes(found.mime);
  if (!image && !FILE_TYPES.includes(found.mime)) return undefined;
  return { ...found, image };
}
