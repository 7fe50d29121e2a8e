import type { FastifyReply } from 'fastify';
import type { DefineRoute } from '../../lib/http.js';
import { flowCsv, serviceCsv, talkCsv } from './csv.js';
import type { CensusService } from './service.js';

const access = { permission: 'seePermissions:statistics' } as const;

function sendCsv(reply: FastifyReply, name: string, csv: string): FastifyReply {
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}.csv"`)
    .header('cache-control', 'no-store')
    .send(csv);
}

/** CONTRACT §9: each call answers the envelope, or with `format=csv` its list as a CSV file. */
export function censusRoutes(route: DefineRoute, census: CensusService): void {
  route('GET /api/census/flow', {
    access,
    async handler({ query, lang, reply }) {
      const answer = await census.flow(query.dim, query.from, query.to);
      if (query.format !== 'csv') return answer;
      return sendCsv(reply, `flow-${query.dim}-${answer.period.from}-${answer.period.to}`, flowCsv(answer, lang));
    },
  });
  route('GET /api/census/talk', {
    access,
    async handler({ query, lang, reply }) {
      const answer = await census.talk(query.dim, query.from, query.to);
      if (query.format !== 'csv') return answer;
      return sendCsv(reply, `talk-${query.dim}-${answer.period.from}-${answer.period.to}`, talkCsv(answer, lang));
    },
  });
  route('GET /api/census/service', {
    access,
    async handler({ query, lang, reply }) {
      const answer = await census.service(query.kind, query.from, query.to, query.serviceID);
      if (query.format !== 'csv') return answer;
      return sendCsv(reply, `service-${query.kind}-${answer.period.from}-${answer.period.to}`, serviceCsv(answer, lang));
    },
  });
  route('GET /api/census/overview', { access, handler: ({ query }) => census.overview(query.from, query.to) });
}
