# Parley as a container image: `docker build -t parley .` at the repository's root. The image holds the
# built server, console and widget and their runtime packages; it runs as the unprivileged `node` user
# and keeps everything it writes in /data (mount a volume there). See deploy/compose/ for two processes
# behind nginx with PostgreSQL and Redis.

FROM node:20-bookworm-slim AS build
WORKDIR /app
# Native packages (SQLite, argon2, jieba) take their prebuilt binaries; the toolchain is the fallback.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
# The manifests first, so that a change of code does not install the packages again.
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/
COPY apps/server/package.json apps/server/
COPY apps/console/package.json apps/console/
COPY apps/widget/package.json apps/widget/
COPY e2e/package.json e2e/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=10000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/apps/server/package.json ./apps/server/
COPY --from=build /app/apps/server/dist ./apps/server/dist
COPY --from=build /app/apps/console/dist ./apps/console/dist
COPY --from=build /app/apps/widget/dist ./apps/widget/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 10000
# /healthz answers while the process serves; /readyz (database and Redis) is for the load balancer.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=64", "apps/server/dist/main.js"]
