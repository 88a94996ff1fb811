# The market-data service. Build: `docker build -t mds .`
# Run alone (embedded PGlite in /app/data): `docker run -p 3000:3000 -v mds-data:/app/data mds`
# With PostgreSQL and Redis: see docker-compose.yml.

# --- build: install everything, compile, then drop the dev dependencies ---------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The build (prisma generate + tsc) needs the sources in place first. .dockerignore keeps
# tests, docs and local state out.
COPY . .
# The prune drops the dev tools; `--omit=optional` also drops the Prisma CLI and TypeScript,
# which the lockfile marks dev-or-optional (an optional peer of @prisma/client): the
# generated client needs neither at run time.
# --ignore-scripts: the image's npm 10 does not read package.json "allowScripts", so install
# scripts (Prisma's engine download) are skipped explicitly and the build is run by name.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm run build \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund

# --- runtime ---------------------------------------------------------------------------------
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# package.json: the version reported by /health. prisma/migrations: applied at start.
# bin/: the `mds` command (`node bin/mds.js ...`).
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/bin ./bin
# DATA_DIR of the embedded default (./data); owned by the unprivileged user so a volume
# mounted here starts out writable.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (graceful shutdown in src/server.ts).
CMD ["node", "dist/src/server.js"]
