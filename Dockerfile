# The portal as one image: `portal serve` on the production build. Point DATABASE_URL at a
# PostgreSQL server (the embedded one is for development) and set the secrets.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY --from=build /app/public ./public
COPY package.json ./
COPY app ./app
COPY db ./db
COPY cli ./cli
COPY server ./server
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# liveness: a database outage is not a reason to replace the container (the portal recovers by itself and
# /readyz says 503 meanwhile, for a load balancer)
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "cli/bin.js", "serve", "--no-build", "--no-demo"]
