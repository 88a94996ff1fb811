#!/bin/bash
# A pg_auto_failover monitor or data node of docker-compose.yml's `ha` profile, run by bash in
# the citusdata/pg_auto_failover image as its `docker` user: `pg-auto-failover.sh monitor|node`.
# The first start creates the node (pg_autoctl create may be repeated after an interruption) and
# sets the passwords that `--auth scram-sha-256` leaves to the operator (pg_auto_failover's
# "Security settings"): autoctl_node on the monitor; the replication role, and the service's
# role and database owner, on the node that starts as primary (standbys get them by streaming).
# Then pg_autoctl runs in place of this shell, so it receives compose's SIGTERM.
set -euo pipefail

role=${1:?usage: pg-auto-failover.sh monitor|node}
: "${PGDATA:?}" "${PGAF_HOSTNAME:?}" "${PGAF_MONITOR_PASSWORD:?}"
port=${PGPORT:-5432}
# Outside PGDATA: pg_basebackup and pg_rewind replace what is inside it.
marker="$(dirname "$PGDATA")/.mds-initialised"

# SQL from stdin on the local server, started for the purpose on its socket only (no TCP).
local_sql() {
  pg_ctl --pgdata "$PGDATA" --wait --options "-c listen_addresses='' -p $port" start >/dev/null
  trap 'pg_ctl --pgdata "$PGDATA" --wait --mode fast stop >/dev/null' EXIT
  psql --no-psqlrc --quiet --set ON_ERROR_STOP=1 --port "$port" "$@"
  pg_ctl --pgdata "$PGDATA" --wait --mode fast stop >/dev/null
  trap - EXIT
}

if [ ! -e "$marker" ]; then
  case "$role" in
    monitor)
      pg_autoctl create monitor --pgport "$port" --hostname "$PGAF_HOSTNAME" \
        --auth scram-sha-256 --ssl-self-signed
      local_sql --dbname pg_auto_failover --set pw="$PGAF_MONITOR_PASSWORD" <<<"ALTER ROLE autoctl_node PASSWORD :'pw';"
      ;;
    node)
      : "${PGAF_MONITOR:?}" "${PGAF_REPLICATION_PASSWORD:?}" "${MDS_PASSWORD:?}"
      # PGPASSWORD: a standby's pg_basebackup from the primary, as pgautofailover_replicator.
      PGPASSWORD="$PGAF_REPLICATION_PASSWORD" pg_autoctl create postgres \
        --pgport "$port" --hostname "$PGAF_HOSTNAME" --name "${PGAF_NAME:-$PGAF_HOSTNAME}" \
        --dbname mds --auth scram-sha-256 --ssl-self-signed --pg-hba-lan \
        --monitor "postgresql://autoctl_node:${PGAF_MONITOR_PASSWORD}@${PGAF_MONITOR}/pg_auto_failover?sslmode=require"
      # Used whenever this node (re)joins as a standby.
      pg_autoctl config set replication.password "$PGAF_REPLICATION_PASSWORD" >/dev/null
      local_sql --dbname mds --set repl="$PGAF_REPLICATION_PASSWORD" --set pw="$MDS_PASSWORD" <<'SQL'
SELECT NOT pg_is_in_recovery() AS primary \gset
\if :primary
ALTER ROLE pgautofailover_replicator PASSWORD :'repl';
SELECT 'CREATE ROLE mds LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mds') \gexec
ALTER ROLE mds PASSWORD :'pw';
ALTER DATABASE mds OWNER TO mds;
\endif
SQL
      ;;
    *)
      echo "pg-auto-failover.sh: unknown role $role (monitor or node)" >&2
      exit 2
      ;;
  esac
  touch "$marker"
fi

# pg_autoctl opens pg_hba.conf to its peers by address (a container's name does not resolve back
# to it) and to the subnet it found at creation; both change when compose recreates a container
# or the network. The same rules by `samenet` (the subnets this container is on) hold anyway,
# plus the service's role, which pg_autoctl leaves out.
if [ "$role" = monitor ]; then
  rules=('hostssl "pg_auto_failover" "autoctl_node" samenet scram-sha-256')
else
  rules=('hostssl all "pgautofailover_monitor" samenet trust'
    'hostssl replication "pgautofailover_replicator" samenet scram-sha-256'
    'hostssl "mds" "pgautofailover_replicator" samenet scram-sha-256'
    'hostssl "mds" "mds" samenet scram-sha-256')
fi
for rule in "${rules[@]}"; do
  grep -qxF "$rule" "$PGDATA/pg_hba.conf" || printf '%s\n' "$rule" >>"$PGDATA/pg_hba.conf"
done
exec pg_autoctl run
