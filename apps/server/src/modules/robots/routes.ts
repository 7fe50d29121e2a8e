import type { MultipartFile } from '@fastify/multipart';
import { MAX_ROBOT_IMPORT_BYTES } from '@parley/protocol';
import type { FastifyRequest } from 'fastify';
import { type AuthContext, auditActor } from '../../lib/caller.js';
import { crudRoutes } from '../../lib/crud.js';
import { ApiError, badRequest } from '../../lib/errors.js';
import { JobSlots } from '../../lib/heavy.js';
import { allowed, type DefineRoute } from '../../lib/http.js';
import type { Lang } from '../../lib/i18n.js';
import { isoNow } from '../../lib/time.js';
import type { RobotService } from './service.js';

const access = { permission: 'setPermissions:robotSettings' } as const;

export function robotRoutes(route: DefineRoute, robots: RobotService, exports: JobSlots): void {
  crudRoutes(route, 'robot/ask', access, robots);
  // An import parses and stores its rows a slice at a time; one at a time in a process keeps a second
  // one (or a script posting many) from adding to that work on the event loop.
  const imports = new JobSlots({ perAgent: 1, perProcess: 1 }, 'robotImportBusy');
  route('POST /api/robot/ask/import', {
    access,
    async handler({ req, lang, auth }) {
      const release = imports.take(auth.uuid);
      try {
        return await importFile(req, lang, auth);
      } finally {
        release();
      }
    },
  });
  async function importFile(req: FastifyRequest, lang: Lang, auth: AuthContext) {
    let file: MultipartFile | undefined;
    try {
      file = await req.file({ limits: { fileSize: MAX_ROBOT_IMPORT_BYTES, files: 1, fields: 4 } });
    } catch {
      throw badRequest('robotImportMissing');
    }
    if (!file) throw badRequest('robotImportMissing');
    let bytes: Buffer;
    try {
      bytes = await file.toBuffer();
    } catch {
      throw new ApiError(413, 'uploadTooLarge', { mb: MAX_ROBOT_IMPORT_BYTES / 1024 / 1024 });
    }
    // The whole file is in. Storing it can outlast the idle timeout of a silent connection (tens of
    // seconds for 2 MiB on a busy PostgreSQL), which must not cut the answer off; the keep-alive timeout
    // takes over again once it is sent.
    req.raw.socket.setTimeout(0);
    return robots.importCsv(bytes.toString('utf8'), lang, auditActor(auth, req));
  }
  route('GET /api/robot/ask/export', {
    access,
    handler({ query, auth, reply }) {
      const release = exports.take(auth.uuid);
      reply.raw.once('close', release);
      reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="robot-${isoNow().slice(0, 10)}.csv"`)
        .header('cache-control', 'no-store')
        .send(robots.exportCsv(query));
    },
  });
  route('POST /api/robot/try', { access, handler: ({ body }) => robots.try(body.text) });
  route('GET /api/robot/question/getList', { access, handler: ({ query }) => robots.listQuestions(query) });
  route('POST /api/robot/question/dismiss', {
    access,
    handler: ({ body, auth, req }) => robots.dismissQuestions(body.ids, auditActor(auth, req)),
  });
  route('GET /api/robot/assist', { access, handler: () => robots.assistFigures() });
  route('GET /api/robot/high', { access, handler: () => robots.getHigh() });
  route('POST /api/robot/high', {
    access,
    handler: ({ body, auth, req }) => robots.saveHigh(body, { uuid: auth.uuid, admin: allowed(auth, 'admin') }, auditActor(auth, req)),
  });
}
