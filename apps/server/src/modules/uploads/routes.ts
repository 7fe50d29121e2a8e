import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MultipartFile } from '@fastify/multipart';
import { type Uploaded, yqToken } from '@parley/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UploadLimits } from '../../config.js';
import type { Db } from '../../db/index.js';
import { ApiError } from '../../lib/errors.js';
import type { DefineRoute } from '../../lib/http.js';
import { isoNow } from '../../lib/time.js';
import { hashToken } from '../../lib/tokens.js';
import { regionBlocked } from '../regions/rules.js';
import { cleanName } from './names.js';
import { addressKey, type Reservation, UploadQuota } from './quota.js';
import { UploadRepository } from './repository.js';
import { type Sniffed, sniff } from './sniff.js';
import { FILE_NAME, TEMPORARY_PREFIX, UploadSweeper } from './sweep.js';

/** What the settings pages decide about uploads, read at each upload. */
export interface UploadSettings {
  maxBytes(): number;
  visitorUploads(): boolean;
  /** Whether a region rule keeps visitors of this region (their row's `region_code`) from writing. */
  regionBlocked(regionCode: string): boolean;
}

/** Uploads for chat messages, kept under DATA_DIR/uploads and served back with their sniffed type. */
export function uploadRoutes(
  app: FastifyInstance,
  route: DefineRoute,
  db: Db,
  dataDir: string,
  limits: UploadLimits,
  settings: UploadSettings,
): void {
  const dir = join(dataDir, 'uploads');
  mkdirSync(dir, { recursive: true });
  const repo = new UploadRepository(db);
  const quota = new UploadQuota(repo, dir, limits);
  const sweeper = new UploadSweeper(repo, dir, { intervalMs: limits.sweepIntervalMs, graceMs: limits.sweepGraceMs }, app.log);
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', () => sweeper.stop());

  type Owner = { visitor_id: number | null; agent_id: number | null };

  async function receive(req: FastifyRequest, ownerOf: (file: MultipartFile) => Promise<Owner>): Promise<Uploaded> {
    let file: MultipartFile | undefined;
    const maxBytes = settings.maxBytes();
    try {
      file = await req.file({ limits: { fileSize: maxBytes, files: 1, fields: 4 } });
    } catch {
      throw new ApiError(400, 'uploadMissing');
    }
    if (!file) throw new ApiError(400, 'uploadMissing');
    const owner = await ownerOf(file);
    const ip = addressKey(req.ip);
    let reservation: Reservation;
    try {
      reservation = await quota.begin({ visitorId: owner.visitor_id, ip });
    } catch (error) {
      file.file.resume();
      throw error;
    }
    const temporary = join(dir, `${TEMPORARY_PREFIX}${randomBytes(12).toString('hex')}`);
    // Counts bytes as they arrive; past a quota the rest is read but no longer written.
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        done(null, reservation.add(chunk.length) ? chunk : undefined);
      },
    });
    try {
      await pipeline(file.file, meter, createWriteStream(temporary));
      if (file.file.truncated) throw new ApiError(413, 'uploadTooLarge', { mb: maxBytes / 1024 / 1024 });
      if (reservation.refused) throw reservation.refused;
      const head = await readHead(temporary);
      const type: Sniffed | undefined = sniff(head, file.filename);
      if (!type) throw new ApiError(400, 'uploadType');
      const name = `${randomBytes(18).toString('base64url')}.${type.extension}`;
      const { size } = await stat(temporary);
      await rename(temporary, join(dir, name));
      const originalName = cleanName(file.filename, type.extension);
      try {
        await repo.insert({ name, original_name: originalName, mime: type.mime, size, ...owner, ip, created_at: isoNow() });
      } catch (error) {
        await rm(join(dir, name), { force: true });
        throw error;
      }
      reservation.commit();
      // The original name rides as the URL's last part, so a client can show it from the URL alone.
      return { url: `/api/files/${name}/${encodeURIComponent(originalName)}`, name: originalName, size, type: type.mime };
    } finally {
      reservation.end();
      await rm(temporary, { force: true });
    }
  }

  route('POST /api/visitor/upload', {
    access: 'public',
    limit: 'visitorUpload',
    handler: ({ req, limitToken }) => {
      if (!settings.visitorUploads()) throw new ApiError(403, 'visitorUploadsOff');
      return receive(req, async (file) => {
        // The credential comes in the query, or as a form field sent before the file.
        const field = file.fields.YQToken;
        const fromForm = field && !Array.isArray(field) && field.type === 'field' ? field.value : undefined;
        const token = yqToken.safeParse((req.query as Record<string, unknown>).YQToken ?? fromForm);
        if (token.success) {
          try {
            await limitToken(token.data);
          } catch (error) {
            file.file.resume();
            throw error;
          }
        }
        const visitor = token.success
          ? await db.selectFrom('visitors').select(['id', 'region_code']).where('token_hash', '=', hashToken(token.data)).executeTakeFirst()
          : undefined;
        if (!visitor) {
          file.file.resume();
          throw new ApiError(401, 'visitorUnknown');
        }
        if (settings.regionBlocked(visitor.region_code)) {
          file.file.resume();
          throw regionBlocked();
        }
        return { visitor_id: visitor.id, agent_id: null };
      });
    },
  });

  route('POST /api/talk/upload', {
    access: 'agent',
    handler: ({ req, auth }) => receive(req, async () => ({ visitor_id: null, agent_id: auth.agentId })),
  });

  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const { name } = req.params as { name: string };
    const row = FILE_NAME.test(name)
      ? await db.selectFrom('uploads').select(['mime', 'original_name', 'size']).where('name', '=', name).executeTakeFirst()
      : undefined;
    if (!row) return reply.callNotFound();
    const inline = row.mime.startsWith('image/');
    return reply
      .type(row.mime)
      .header('content-length', row.size)
      .header('cache-control', 'private, max-age=31536000, immutable')
      .header('content-security-policy', "default-src 'none'; img-src 'self'; sandbox")
      .header('cross-origin-resource-policy', 'same-site')
      .header(
        'content-disposition',
        `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(servedName(row.original_name, name))}`,
      )
      .send(createReadStream(join(dir, name)));
  };
  app.get('/api/files/:name', serve);
  app.get('/api/files/:name/:label', serve);
}

/** Names stored before they were cleaned are cleaned when served, with the stored file's (sniffed) extension. */
function servedName(originalName: string, name: string): string {
  return cleanName(originalName, name.slice(name.lastIndexOf('.') + 1));
}

async function readHead(path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of createReadStream(path, { start: 0, end: 4095 })) {
    chunks.push(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks, length);
}
