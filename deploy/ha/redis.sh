#!/bin/sh
# A Redis server or Sentinel of docker-compose.yml's `ha` profile, run by sh in the official redis
# image: `redis.sh server|sentinel`. The configuration file is written on the first start only:
# Sentinel rewrites its own and a server's (CONFIG REWRITE) when it reconfigures the topology, so
# a restarted container keeps the role a failover gave it. Hostnames throughout, since a
# recreated container gets a new address. Then redis-server through the image's entrypoint,
# which drops to the redis user.
set -eu

mode=${1:?usage: redis.sh server|sentinel}
: "${REDIS_ANNOUNCE_HOST:?the name other instances and clients reach this one by}"
if [ ! -e "${REDIS_CONF:=/data/$mode.conf}" ]; then
  case "$mode" in
    server)
      {
        echo "port ${REDIS_PORT:-6379}"
        echo "replica-announce-ip $REDIS_ANNOUNCE_HOST"
        if [ -n "${REDIS_REPLICA_OF:-}" ]; then echo "replicaof $REDIS_REPLICA_OF"; fi
      } >"$REDIS_CONF"
      ;;
    sentinel)
      # A master is down once 2 of the 3 sentinels have had no answer for 5 s.
      cat >"$REDIS_CONF" <<CONF
port ${REDIS_PORT:-26379}
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $REDIS_ANNOUNCE_HOST
sentinel monitor mymaster ${REDIS_MASTER:-redis-master 6379} 2
sentinel down-after-milliseconds mymaster 5000
sentinel failover-timeout mymaster 60000
sentinel parallel-syncs mymaster 1
CONF
      ;;
    *)
      echo "redis.sh: unknown mode $mode (server or sentinel)" >&2
      exit 2
      ;;
  esac
fi
if [ "$mode" = sentinel ]; then set -- --sentinel; else set --; fi
exec docker-entrypoint.sh redis-server "$REDIS_CONF" "$@"
