/**
 * Imported first by the server entry point (src/server.ts). graphql-js checks NODE_ENV when it
 * loads: outside "production" it runs a development-only instanceof check on every value it
 * completes, a tenth of the CPU of a 10,000-row GraphQL page. The service runs as production
 * unless NODE_ENV says otherwise.
 */
process.env.NODE_ENV ||= 'production';
