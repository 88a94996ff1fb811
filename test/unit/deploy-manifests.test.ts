/**
 * The deployment files, checked without a cluster or a Docker engine. deploy/kubernetes: each
 * manifest against kubernetes-models' API schemas and, for misspelt fields, its TypeScript
 * declarations; then what a schema cannot know (probes and ports against the service's config,
 * the shutdown budget, selectors, PDBs, env sources). docker-compose.yml: the Compose
 * specification's schema (shipped in dclint), then its profiles, dependencies, health checks,
 * mounts, `$` escapes and the API's environment. deploy/ha scripts: shell syntax.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IService } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { loadConfig } from '../../src/config';
import { Exchanges } from '../../src/domain/exchanges';
import { marketEndpoints } from '../../src/domain/params/market-endpoints';
import { operations } from '../../src/rest/openapi';

const ROOT = path.resolve(__dirname, '..', '..');
const K8S = path.join(ROOT, 'deploy', 'kubernetes');
/** Applied by hand (it holds credentials), so not in kustomization.yaml. */
const SECRET_EXAMPLE = 'secret.example.yaml';

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

/** Kinds the manifests may use: the kubernetes-models class (AJV schema) and its declaration (field names). */
const MODELS: Record<string, { model: new (data: never) => { validate(): void }; declaration: [string, string] }> = {
  'apps/v1/Deployment': { model: Deployment, declaration: ['kubernetes-models/apps/v1/Deployment', 'IDeployment'] },
  'v1/Service': { model: Service, declaration: ['kubernetes-models/v1/Service', 'IService'] },
  'v1/ConfigMap': { model: ConfigMap, declaration: ['kubernetes-models/v1/ConfigMap', 'IConfigMap'] },
  'v1/Secret': { model: Secret, declaration: ['kubernetes-models/v1/Secret', 'ISecret'] },
  'policy/v1/PodDisruptionBudget': { model: PodDisruptionBudget, declaration: ['kubernetes-models/policy/v1/PodDisruptionBudget', 'IPodDisruptionBudget'] },
};

function yamlDocuments(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => {
    if (doc.errors.length || doc.warnings.length) throw new Error(`${file}: ${[...doc.errors, ...doc.warnings].map((e) => e.message).join('; ')}`);
    return doc.toJS();
  });
}

const manifestFiles = readdirSync(K8S).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const manifests: Manifest[] = manifestFiles.flatMap((file) => yamlDocuments(path.join(K8S, file)).map((doc) => ({ ...(doc as Manifest), file })));
const kustomization = parse(readFileSync(path.join(K8S, 'kustomization.yaml'), 'utf8')) as { resources: string[]; images?: { name: string }[] };

const ofKind = <T>(kind: string) => manifests.filter((m) => m.kind === kind) as unknown as (T & Manifest)[];
const deployments = ofKind<IDeployment>('Deployment');
const containersOf = (d: IDeployment): IContainer[] => d.spec?.template.spec?.containers ?? [];
const byName = <T extends { metadata: { name: string } }>(list: T[], name: string): T => {
  const found = list.find((m) => m.metadata.name === name);
  if (!found) throw new Error(`no ${name} among ${list.map((m) => m.metadata.name).join(', ')}`);
  return found;
};
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** The environment a container gets from its ConfigMaps and Secrets (the example Secret's values), plus `env`. */
function environmentOf(container: IContainer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    const source = byName(manifests.filter((m) => m.kind === (from.configMapRef ? 'ConfigMap' : 'Secret')), ref?.name ?? '');
    Object.assign(env, (source as Manifest & { data?: Record<string, string>; stringData?: Record<string, string> }).data, (source as { stringData?: Record<string, string> }).stringData);
  }
  for (const e of container.env ?? []) if (e.value !== undefined) env[e.name] = e.value;
  return env;
}

/** Every variable the service reads (the keys of src/config-schema.ts's zod schema), and issue 23's Sentinel settings until it reads them. */
function serviceVariables(): Set<string> {
  const source = readFileSync(path.join(ROOT, 'src', 'config-schema.ts'), 'utf8');
  const names = new Set([...source.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]));
  if (!names.has('REDIS_SENTINELS')) for (const n of ['REDIS_SENTINELS', 'REDIS_SENTINEL_MASTER', 'REDIS_SENTINEL_PASSWORD']) names.add(n);
  return names;
}

/** The seconds a container's preStop hook pauses for (`sleep N`), 0 without one. */
function preStopSeconds(container: IContainer): number {
  const hook = container.lifecycle?.preStop;
  if (!hook) return 0;
  const command = hook.exec?.command ?? [];
  if (command.length !== 2 || command[0] !== 'sleep' || !/^\d+$/.test(command[1])) throw new Error(`${container.name}: preStop is not \`sleep N\`: ${JSON.stringify(hook)}`);
  return Number(command[1]);
}

/** The container port a probe reaches (by name or number); throws when none matches. */
function probePort(container: IContainer, probe: IProbe | undefined): number {
  const port = probe?.httpGet?.port;
  const found = (container.ports ?? []).find((p) => p.name === port || p.containerPort === port);
  if (!found) throw new Error(`${container.name}: probe port ${String(port)} is not a container port`);
  return found.containerPort;
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  it('kustomization.yaml lists every manifest but the example Secret, and names the image', () => {
    expect([...kustomization.resources].sort()).toEqual(manifestFiles.filter((f) => f !== SECRET_EXAMPLE).sort());
    const images = new Set(deployments.flatMap((d) => containersOf(d).map((c) => c.image)));
    expect([...images]).toEqual(['market-data-api']);
    expect(kustomization.images?.map((i) => i.name)).toEqual(['market-data-api']);
  });

  it.each(manifests.map((m) => [`${m.file}: ${m.kind} ${m.metadata?.name}`, m] as const))('%s validates against the Kubernetes API schema', (_, m) => {
    const entry = MODELS[`${m.apiVersion}/${m.kind}`];
    expect(entry).toBeDefined();
    const { file: _file, ...data } = m;
    expect(() => new entry.model(data as never).validate()).not.toThrow();
    expect(m.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it('uses no field the Kubernetes API does not know (type-checked against kubernetes-models)', () => {
    // AJV's schemas accept unknown fields, which the API server drops or rejects: a misspelt
    // `readinesProbe` would pass. Each manifest is type-checked as an object literal of its
    // kind's declaration instead, where an unknown property is an error.
    const imports = new Map<string, string>();
    const lines: string[] = [];
    const origin: string[] = [];
    manifests.forEach((m, i) => {
      const [module, type] = MODELS[`${m.apiVersion}/${m.kind}`].declaration;
      imports.set(type, module);
      const { file, ...data } = m;
      const text = `export const m${i}: ${type} = ${JSON.stringify(data, null, 1)};`.split('\n');
      lines.push(...text);
      origin.push(...text.map(() => `${file} (${m.kind} ${m.metadata.name})`));
    });
    const head = [...imports].map(([type, module]) => `import type { ${type} } from '${module}';`);
    const source = [...head, ...lines].join('\n');
    const fileName = path.join(ROOT, 'deploy-manifests.virtual.ts');
    const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, types: [], target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists } = host;
    host.getSourceFile = (f, ...rest) => (f === fileName ? ts.createSourceFile(f, source, ts.ScriptTarget.ES2022) : getSourceFile.call(host, f, ...rest));
    host.fileExists = (f) => f === fileName || fileExists.call(host, f);
    const diagnostics = ts.getPreEmitDiagnostics(ts.createProgram([fileName], options, host)).map((d) => {
      const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
      return `${origin[line - head.length] ?? d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
    });
    expect(diagnostics).toEqual([]);
  });

  describe('the API Deployment', () => {
    const api = byName(deployments, 'market-data-api');
    const container = containersOf(api)[0];
    const config = loadConfig(environmentOf(container));

    it('listens where the Service and the probes look: the container port is PORT', () => {
      expect(containersOf(api)).toHaveLength(1);
      const http = container.ports?.find((p) => p.name === 'http');
      expect(http?.containerPort).toBe(config.port);
      const service = byName(ofKind<IService>('Service'), 'market-data-api');
      expect(matches(service.spec?.selector, api.spec?.template.metadata?.labels)).toBe(true);
      for (const p of service.spec?.ports ?? []) expect(container.ports?.some((c) => c.name === p.targetPort || c.containerPort === p.targetPort)).toBe(true);
    });

    it('probes liveness at /health/live and readiness at /health/ready (every 5 s, 3 failures)', () => {
      expect(container.livenessProbe?.httpGet?.path).toBe('/health/live');
      expect(container.startupProbe?.httpGet?.path).toBe('/health/live');
      expect(container.readinessProbe?.httpGet?.path).toBe('/health/ready');
      // The paths are routes the service documents (and serves: test/api/operability.test.ts).
      const exchanges = new Exchanges(['perp', 'spot']);
      const documented = operations(marketEndpoints(exchanges), exchanges).map((o) => o.path);
      expect(documented).toEqual(expect.arrayContaining(['/health/live', '/health/ready']));
      expect(container.readinessProbe).toMatchObject({ periodSeconds: 5, failureThreshold: 3 });
      for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) expect(probePort(container, probe)).toBe(config.port);
    });

    it('gives SIGTERM time to drain: the grace period exceeds preStop + SHUTDOWN_TIMEOUT', () => {
      expect(preStopSeconds(container)).toBe(5);
      expect(config.shutdownTimeoutMs).toBe(10_000);
      expect(api.spec?.template.spec?.terminationGracePeriodSeconds).toBe(20);
      expect(api.spec?.template.spec?.terminationGracePeriodSeconds ?? 30).toBeGreaterThan(preStopSeconds(container) + config.shutdownTimeoutMs / 1000);
    });

    it('runs on PostgreSQL through every node and on Redis Sentinel, seeds no demo data and does not ingest', () => {
      const env = environmentOf(container);
      expect(env.DATABASE_URL).toMatch(/^postgresql:\/\/[^@]+@[^/,]+,[^/]+\/\w+\?(.+&)?target_session_attrs=read-write/);
      expect(env.REDIS_SENTINELS.split(',').length).toBeGreaterThanOrEqual(3);
      expect(env.REDIS_SENTINEL_MASTER).toBe('mymaster');
      expect(config.seedDemo).toBe(false);
      expect(config.ingest.symbols).toEqual([]);
    });
  });

  it('runs the ingester as its own Deployment: two replicas of `mds ingest`, a grace period over SHUTDOWN_TIMEOUT', () => {
    const ingest = byName(deployments, 'market-data-ingest');
    const [container] = containersOf(ingest);
    expect(container.command).toEqual(['node', 'bin/mds.js', 'ingest']);
    expect(ingest.spec?.replicas).toBeGreaterThanOrEqual(2);
    const config = loadConfig(environmentOf(container));
    expect(config.ingest.symbols.length).toBeGreaterThan(0);
    expect(ingest.spec?.template.spec?.terminationGracePeriodSeconds ?? 30).toBeGreaterThan(preStopSeconds(container) + config.shutdownTimeoutMs / 1000);
  });

  it.each(deployments.map((d) => [d.metadata.name, d] as const))('%s: selector matches its pods, one PDB covers them, non-root on a read-only root', (_, d) => {
    expect(matches(d.spec?.selector.matchLabels, d.spec?.template.metadata?.labels)).toBe(true);
    const budgets = ofKind<IPodDisruptionBudget>('PodDisruptionBudget').filter((p) => matches(p.spec?.selector?.matchLabels, d.spec?.template.metadata?.labels));
    expect(budgets).toHaveLength(1);
    const replicas = d.spec?.replicas ?? 1;
    expect(replicas).toBeGreaterThanOrEqual(2);
    const { maxUnavailable, minAvailable } = budgets[0].spec ?? {};
    // A budget that allows no eviction blocks node drains; one that allows all protects nothing.
    if (maxUnavailable !== undefined) expect(maxUnavailable).toBe(1);
    else expect(Number(minAvailable)).toBeLessThan(replicas);
    // The image's USER is a name (`node`): the kubelet checks runAsNonRoot only against a number.
    const dockerUser = /^USER\s+(\S+)/m.exec(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'))?.[1];
    const pod = d.spec?.template.spec?.securityContext;
    expect(pod?.runAsNonRoot).toBe(true);
    if (!/^\d+$/.test(dockerUser ?? '')) expect(pod?.runAsUser).toBeGreaterThan(0);
    for (const c of containersOf(d)) {
      expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
      expect(c.resources?.requests?.memory).toBeDefined();
      expect(c.resources?.limits?.memory).toBeDefined();
    }
  });

  it('sets only variables the service reads, from ConfigMaps and the Secret the pods refer to', () => {
    const known = serviceVariables();
    const keys = manifests
      .filter((m) => m.kind === 'ConfigMap' || m.kind === 'Secret')
      .flatMap((m) => Object.keys({ ...(m.data as object), ...(m.stringData as object) }));
    expect(keys.filter((k) => !known.has(k))).toEqual([]);
    // environmentOf throws on a reference to a ConfigMap or Secret that is not there.
    for (const d of deployments) for (const c of containersOf(d)) expect(() => environmentOf(c)).not.toThrow();
  });
});

interface ComposeService {
  image?: string;
  build?: unknown;
  profiles?: string[];
  networks?: string[] | Record<string, unknown>;
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
  environment?: Record<string, string | number | boolean | null>;
  volumes?: string[];
  stop_grace_period?: string;
}
interface ComposeFile {
  services: Record<string, ComposeService>;
  networks?: Record<string, unknown>;
  volumes?: Record<string, unknown>;
}

describe('docker-compose.yml', () => {
  const text = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
  const compose = parse(text, { merge: true }) as ComposeFile;
  const services = Object.entries(compose.services);
  const dependencies = (s: ComposeService) => (Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}));
  const networksOf = (s: ComposeService) => (s.networks === undefined ? ['default'] : Array.isArray(s.networks) ? s.networks : Object.keys(s.networks));
  /** Compose's interpolation with the defaults, as with no variable set (`${X:-d}` -> d, `$$` -> `$`). */
  const interpolate = (v: string) => v.replace(/\$\$|\$\{([A-Z_][A-Z0-9_]*)(?::?-([^}]*))?\}/g, (m, _name, fallback) => (m === '$$' ? '$' : (fallback ?? '')));

  it('validates against the Compose specification schema', () => {
    const schemaFile = path.join(path.dirname(require.resolve('dclint/package.json')), 'schemas', 'compose.schema.json');
    const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
    // The specification's own schema: not written for Ajv's strict mode, and it names draft-07
    // by an https URL that Ajv registers under http.
    const ajv = new Ajv({ allErrors: true, strict: false });
    ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
    const validate = ajv.compile(schema);
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it('escapes every `$` that is not interpolation ($$), and uses only ${NAME} and ${NAME:-default}', () => {
    const bad = [...text.matchAll(/\$(?!\$|\{[A-Z_][A-Z0-9_]*(?::?-[^}]*)?\})/g)].filter((m) => text[m.index - 1] !== '$');
    expect(bad.map((m) => text.slice(m.index - 20, m.index + 20))).toEqual([]);
  });

  it.each(services)('%s: depends only on services active with it, healthy ones having a health check', (_, s) => {
    for (const dep of dependencies(s)) {
      const target = compose.services[dep];
      expect(target).toBeDefined();
      // Active whenever this service is: no profile, or one of its profiles.
      expect(!target.profiles || target.profiles.some((p) => s.profiles?.includes(p))).toBe(true);
      if (!Array.isArray(s.depends_on) && s.depends_on?.[dep].condition === 'service_healthy') {
        expect(target.healthcheck?.test).toBeDefined();
        expect(target.healthcheck?.disable).not.toBe(true);
      }
    }
    if (s.healthcheck?.test) expect(['CMD', 'CMD-SHELL']).toContain([s.healthcheck.test].flat()[0]);
  });

  it.each(services)('%s: mounts files that exist and volumes and networks that are declared', (_, s) => {
    for (const v of s.volumes ?? []) {
      const source = v.split(':')[0];
      if (source.startsWith('./')) expect(existsSync(path.join(ROOT, source))).toBe(true);
      else if (v.includes(':')) expect(Object.keys(compose.volumes ?? {})).toContain(source);
    }
    for (const n of networksOf(s)) expect(n === 'default' || n in (compose.networks ?? {})).toBe(true);
  });

  it('keeps the ha profile to itself: its own network, started by naming nginx-ha, the default services untouched', () => {
    const ha = services.filter(([, s]) => s.profiles?.includes('ha'));
    expect(ha.map(([n]) => n).sort()).toEqual(
      ['api-ha1', 'api-ha2', 'nginx-ha', 'pg-monitor', 'pg-node1', 'pg-node2', 'redis-master', 'redis-replica', 'redis-sentinel-1', 'redis-sentinel-2', 'redis-sentinel-3'].sort(),
    );
    for (const [name, s] of ha) {
      expect([name, networksOf(s)]).toEqual([name, ['ha']]);
      for (const dep of dependencies(s)) expect([name, compose.services[dep].profiles]).toEqual([name, ['ha']]);
    }
    // Everything of the profile is reached from nginx-ha through depends_on.
    const reached = new Set<string>();
    const visit = (n: string) => !reached.has(n) && (reached.add(n), dependencies(compose.services[n]).forEach(visit));
    visit('nginx-ha');
    expect([...reached].sort()).toEqual(ha.map(([n]) => n).sort());
    for (const [name, s] of services.filter(([, s]) => !s.profiles?.includes('ha'))) expect([name, networksOf(s)]).toEqual([name, ['default']]);
  });

  it.each(services.filter(([, s]) => s.environment?.PORT !== undefined))('%s: an environment the service accepts, on hosts of its network, drained within stop_grace_period', (_, s) => {
    const env = Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, interpolate(String(v ?? ''))]));
    const config = loadConfig(env);
    expect(Object.keys(env).filter((k) => !serviceVariables().has(k))).toEqual([]);
    const onMyNetwork = (host: string) => compose.services[host] !== undefined && networksOf(compose.services[host]).some((n) => networksOf(s).includes(n));
    const dbHosts = /@([^/]+)\//.exec(env.DATABASE_URL)?.[1].split(',').map((h) => h.split(':')[0]) ?? [];
    expect(dbHosts.filter((h) => !onMyNetwork(h))).toEqual([]);
    const sentinels = env.REDIS_SENTINELS ? env.REDIS_SENTINELS.split(',').map((h) => h.split(':')[0]) : [/redis:\/\/([^:/]+)/.exec(env.REDIS_URL)?.[1] ?? ''];
    expect(sentinels.filter((h) => !onMyNetwork(h))).toEqual([]);
    if (s.profiles?.includes('ha')) {
      expect(dbHosts).toEqual(['pg-node1', 'pg-node2']);
      expect(env.DATABASE_URL).toContain('target_session_attrs=read-write');
      expect(sentinels).toEqual(['redis-sentinel-1', 'redis-sentinel-2', 'redis-sentinel-3']);
    }
    expect(Number(/^(\d+)s$/.exec(s.stop_grace_period ?? '10s')?.[1])).toBeGreaterThan(config.shutdownTimeoutMs / 1000);
  });

  it.each([
    ['bash', 'deploy/ha/pg-auto-failover.sh'],
    ['sh', 'deploy/ha/redis.sh'],
  ])('%s -n %s: the start-up scripts parse', (shell, script) => {
    expect(() => execFileSync(shell, ['-n', path.join(ROOT, script)], { stdio: 'pipe' })).not.toThrow();
    expect(text).toContain(`./${script}:`);
  });
});
