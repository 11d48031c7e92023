# The API (and, with `node dist/src/worker.js`, the workers) for running beyond one laptop, on
# an external PostgreSQL (DATABASE_URL): the embedded PostgreSQL (an optional dependency) is
# left out of the image.
# Node 24: the current LTS (Node 20 reached its end of life in April 2026), and the runtime the
# benchmark's table is measured on (README, "Performance").
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm ci applies patches/ to the dependencies (patch-package, the postinstall script).
COPY patches ./patches
RUN npm ci --loglevel=warn
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
COPY examples/operations.graphql ./examples/operations.graphql
# The console's sources: the build writes the app into dist/console/, which the image serves.
COPY console ./console
RUN npm run build && npm prune --omit=dev --omit=optional --loglevel=warn

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=4000
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/examples/operations.graphql ./examples/operations.graphql
COPY package.json ./
USER node
EXPOSE 4000
# Ready means the database answers too (a worker service overrides this with its own check).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 4000}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
