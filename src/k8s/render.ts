// `benchgate k8s PLAN`: the Kubernetes objects that run one plan from many machines. An Indexed Job
// (completionMode: Indexed) runs one pod per shard; Kubernetes sets JOB_COMPLETION_INDEX in each pod,
// which picks the shard's share of the load (load/shard.ts). The plan (its header values are secrets)
// and the API key of target.api_key_env live in a Secret, the common start time in a ConfigMap. Each pod
// writes its shard run directory, then either prints it to stdout as a base64 tar
// between two marker lines (collected with `kubectl logs`), or leaves it on a shared volume (a
// ReadWriteMany PersistentVolumeClaim). Pure: it renders text; the CLI prints it.

import { stringify } from 'yaml';
import { BenchgateError } from '../core/errors.js';

export type ResultsTo = { kind: 'stdout' } | { kind: 'pvc'; claim: string };

export interface K8sRenderOptions {
  /** The plan file's text, stored verbatim in the ConfigMap. */
  planText: string;
  planFileName: string;
  /** Name of the Job and ConfigMap (a DNS label). */
  name: string;
  namespace: string | null;
  shards: number;
  /** Image with `benchgate` on PATH. */
  image: string;
  /** Common start, epoch ms (every pod waits for it before its first request). */
  startAtEpochMs: number;
  results: ResultsTo;
  /** Overrides the clock reference (default: the target's Date header). */
  clockRef: string | null;
  /** Container resource requests, e.g. { cpu: '2', memory: '2Gi' }. */
  resources: { cpu: string; memory: string };
  /** target.api_key_env and its value here: the pods get the variable from the Secret. */
  apiKey?: { env: string; value: string } | null;
}

/** The Secret's key holding the API key (the plan file is the other key). */
const API_KEY_ITEM = 'api-key';

export const RESULTS_BEGIN = '----- benchgate results (base64 tar.gz) begin -----';
export const RESULTS_END = '----- benchgate results end -----';

/** Kubernetes object names: lowercase alphanumerics and '-', at most 63 characters (the Job name is a pod label). */
export function checkName(name: string): string {
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(name))
    throw new BenchgateError(
      'BG_E_USAGE',
      `--name must be a DNS label (lowercase letters, digits and '-', at most 63 characters); found "${name}".`,
    );
  return name;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'"'"'`)}'`;
}

/** The pod's shell script: run this shard, then hand its run directory back. */
function podScript(o: K8sRenderOptions): string {
  const bench = `benchgate bench /plan/${shellQuote(o.planFileName)} --out "$OUT" --name "${o.name}-shard-$JOB_COMPLETION_INDEX" --json > /dev/null`;
  if (o.results.kind === 'pvc')
    return ['set -e', `OUT=/results/${o.name}`, 'mkdir -p "$OUT"', bench, 'ls -d "$OUT"/*'].join('\n');
  return [
    'set -e',
    'OUT=/tmp/results',
    'mkdir -p "$OUT"',
    bench,
    `echo '${RESULTS_BEGIN}'`,
    'tar -C "$OUT" -cz . | base64',
    `echo '${RESULTS_END}'`,
  ].join('\n');
}

/** The pod's variables: the shard count, the common start (ConfigMap), the API key (Secret), the clock reference. */
function podEnv(o: K8sRenderOptions): Record<string, unknown>[] {
  const env: Record<string, unknown>[] = [
    { name: 'BENCHGATE_SHARDS', value: String(o.shards) },
    {
      name: 'BENCHGATE_START_AT',
      valueFrom: { configMapKeyRef: { name: `${o.name}-start`, key: 'start-at' } },
    },
  ];
  if (o.apiKey)
    env.push({
      name: o.apiKey.env,
      valueFrom: { secretKeyRef: { name: `${o.name}-plan`, key: API_KEY_ITEM } },
    });
  if (o.clockRef) env.push({ name: 'BENCHGATE_CLOCK_REF', value: o.clockRef });
  return env;
}

/** The Secret (plan, API key), the ConfigMap (start time) and the Indexed Job, as plain objects for `kubectl apply`. */
export function k8sObjects(o: K8sRenderOptions): Record<string, unknown>[] {
  checkName(o.name);
  if (!Number.isInteger(o.shards) || o.shards < 1 || o.shards > 10_000)
    throw new BenchgateError(
      'BG_E_USAGE',
      `--shards must be a whole number from 1 to 10000; found ${o.shards}.`,
    );
  const metadata = (name: string) => ({
    name,
    ...(o.namespace ? { namespace: o.namespace } : {}),
    labels: { 'app.kubernetes.io/name': 'benchgate', 'benchgate/run': o.name },
  });
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(`${o.name}-plan`),
    type: 'Opaque',
    stringData: { [o.planFileName]: o.planText, ...(o.apiKey ? { [API_KEY_ITEM]: o.apiKey.value } : {}) },
  };
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: metadata(`${o.name}-start`),
    data: { 'start-at': String(o.startAtEpochMs) },
  };
  const env = podEnv(o);
  // only the plan file is mounted; the API key reaches the pod as its variable, never as a file
  const volumes: Record<string, unknown>[] = [
    {
      name: 'plan',
      secret: { secretName: `${o.name}-plan`, items: [{ key: o.planFileName, path: o.planFileName }] },
    },
  ];
  const mounts: Record<string, unknown>[] = [{ name: 'plan', mountPath: '/plan', readOnly: true }];
  if (o.results.kind === 'pvc') {
    volumes.push({ name: 'results', persistentVolumeClaim: { claimName: o.results.claim } });
    mounts.push({ name: 'results', mountPath: '/results' });
  }
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(o.name),
    spec: {
      completionMode: 'Indexed',
      completions: o.shards,
      parallelism: o.shards,
      // A shard that fails is not retried: a rerun would send its load at another time than the others.
      backoffLimit: 0,
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'benchgate', 'benchgate/run': o.name } },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'benchgate',
              image: o.image,
              command: ['/bin/sh', '-c', podScript(o)],
              env,
              resources: { requests: { ...o.resources }, limits: { memory: o.resources.memory } },
              volumeMounts: mounts,
            },
          ],
          volumes,
        },
      },
    },
  };
  return [secret, configMap, job];
}

/** True for an address only this machine answers on (a pod's own loopback is the pod). */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return (
      host === 'localhost' ||
      host.endsWith('.localhost') ||
      /^127\./.test(host) ||
      host === '::1' ||
      host === '0.0.0.0'
    );
  } catch {
    return false;
  }
}

/** Warnings about addresses the pods cannot reach: a loopback target or clock reference. */
export function unreachableFromPods(targetUrl: string | undefined, clockRef: string | null): string[] {
  const out: string[] = [];
  if (targetUrl && isLoopback(targetUrl))
    out.push(
      `target.url is ${targetUrl}: inside a pod that is the pod itself, not your server; use an address the cluster can reach (e.g. http://vllm.serving.svc:8000).`,
    );
  if (clockRef && isLoopback(clockRef))
    out.push(
      `--clock-ref ${clockRef} is a loopback address: every pod would read its own clock, not a common one.`,
    );
  return out;
}

/** Multi-document YAML for `kubectl apply -f -`. */
export function renderK8sYaml(o: K8sRenderOptions): string {
  return k8sObjects(o)
    .map((doc) => stringify(doc, { lineWidth: 0 }))
    .join('---\n');
}

/** The commands that apply the Job, wait for it, collect every shard and merge them. */
export function k8sCommands(o: K8sRenderOptions, yamlFile: string): string {
  const ns = o.namespace ? ` -n ${shellQuote(o.namespace)}` : '';
  const lines = [
    `# the objects are on stdout: save them as ${yamlFile} (benchgate k8s … > ${yamlFile})`,
    `# start: every pod waits until ${new Date(o.startAtEpochMs).toISOString()} before its first request`,
    `kubectl apply${ns} -f ${shellQuote(yamlFile)}`,
    `kubectl wait${ns} --for=condition=complete --timeout=24h job/${o.name}`,
  ];
  if (o.results.kind === 'stdout') {
    lines.push(
      '# collect: each shard printed its run directory as a base64 tar between two marker lines',
      `for i in $(seq 0 ${o.shards - 1}); do`,
      `  mkdir -p ${o.name}-results/shard-$i`,
      `  kubectl logs${ns} -l job-name=${o.name},batch.kubernetes.io/job-completion-index=$i --tail=-1 \\`,
      `    | sed -n '/^${RESULTS_BEGIN}$/,/^${RESULTS_END}$/p' | sed '1d;$d' | base64 -d | tar -xz -C ${o.name}-results/shard-$i`,
      'done',
      `benchgate merge ${o.name}-results/shard-*/* --out ${o.name}-results`,
    );
  } else {
    lines.push(
      `# collect: the shards wrote to the volume claim ${o.results.claim} under /results/${o.name}/; copy them out, e.g. from a pod that mounts it:`,
      `#   kubectl cp${ns} <pod>:/results/${o.name} ${o.name}-results`,
      `benchgate merge ${o.name}-results/* --out .`,
    );
  }
  lines.push(`# clean up: kubectl delete${ns} job/${o.name} secret/${o.name}-plan configmap/${o.name}-start`);
  return `${lines.join('\n')}\n`;
}
