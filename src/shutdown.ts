/**
 * SIGTERM and SIGINT for the long-running entry points (the server, `mds ingest`): the first
 * signal starts the caller's shutdown and a deadline of SHUTDOWN_TIMEOUT, past which the process
 * exits whatever its dependencies' state; a second signal exits at once.
 */
import type { Logger } from './logger';

export function onShutdownSignals(logger: Logger, timeoutMs: number, shutdown: () => void): void {
  let signals = 0;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (++signals > 1) {
        logger.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      logger.info({ signal }, 'shutting down');
      setTimeout(() => {
        logger.error({ timeout_ms: timeoutMs }, 'shutdown did not finish within SHUTDOWN_TIMEOUT; exiting');
        process.exit(1);
      }, timeoutMs).unref();
      shutdown();
    });
  }
}
