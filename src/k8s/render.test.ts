import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  type K8sRenderOptions,
  k8sCommands,
  k8sObjects,
  RESULTS_BEGIN,
  RESULTS_END,
  renderK8sYaml,
  unreachableFromPods,
} from './render.js';

const base: K8sRenderOptions = {
  planText: 'name: big\nload:\n  kind: rate\n  levels: [50]\n',
  planFileName: 'plan.yaml',
  name: 'bench-big',
  namespace: 'perf',
  shards: 3,
  image: 'registry.example/benchgate:0.1.0',
  startAtEpochMs: Date.parse('2027-01-01T00:00:00Z'),
  results: { kind: 'stdout' },
  clockRef: null,
  resources: { cpu: '2', memory: '2Gi' },
};

/** Validates against the Kubernetes API schema (kubernetes-models' OpenAPI-derived validators); throws on a violation. */
function validate(doc: Record<string, unknown>): void {
  if (doc.kind === 'Job') new Job(doc as never).validate();
  else if (doc.kind === 'ConfigMap') new ConfigMap(doc as never).validate();
  else if (doc.kind === 'Secret') new Secret(doc as never).validate();
  else throw new Error(`unexpected kind ${String(doc.kind)}`);
}

describe('benchgate k8s manifests', () => {
  it('render an Indexed Job (one pod per shard) and a ConfigMap that validate against the Kubernetes schema', () => {
    for (const results of [{ kind: 'stdout' }, { kind: 'pvc', claim: 'bench-results' }] as const) {
      const docs = parseAllDocuments(
        renderK8sYaml({ ...base, results, clockRef: 'http://ntp-ref:8080' }),
      ).map((d) => d.toJSON() as Record<string, unknown>);
      expect(docs.map((d) => d.kind)).toEqual(['Secret', 'ConfigMap', 'Job']);
      for (const d of docs) validate(d);
      const job = docs[2] as {
        spec: Record<string, unknown> & { template: { spec: { containers: { env: unknown[] }[] } } };
      };
      expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 3 });
      expect(job.spec.template.spec.containers[0]!.env).toContainEqual({
        name: 'BENCHGATE_SHARDS',
        value: '3',
      });
      expect((docs[0] as { stringData: Record<string, string> }).stringData['plan.yaml']).toBe(base.planText);
    }
  });

  it('the schema check rejects a broken Job (so the test above can fail)', () => {
    const [, , job] = k8sObjects(base) as [unknown, unknown, { spec: Record<string, unknown> }];
    job.spec.completionMode = 'indexed';
    expect(() => validate(job as never)).toThrow(/completionMode/);
    const [, cm] = k8sObjects(base) as [unknown, { data: Record<string, unknown> }];
    cm.data['start-at'] = 1;
    expect(() => validate(cm as never)).toThrow(/must be string/);
  });

  it('refuses a name Kubernetes would refuse, naming the flag', () => {
    expect(() => k8sObjects({ ...base, name: 'Bench_Big' })).toThrow(/--name must be a DNS label/);
    expect(() => k8sObjects({ ...base, shards: 0 })).toThrow(/--shards/);
  });

  it('the collect commands unpack what a pod prints back into its run directory', () => {
    // the pod side: the script's own tar | base64 between the markers, as `kubectl logs` returns it
    const dir = mkdtempSync(join(tmpdir(), 'bg-k8s-'));
    mkdirSync(join(dir, 'pod', 'run-shard-0'), { recursive: true });
    writeFileSync(join(dir, 'pod', 'run-shard-0', 'summary.json'), '{}');
    const b64 = execFileSync('sh', ['-c', `tar -C ${join(dir, 'pod')} -cz . | base64`]).toString();
    const log = `bench progress\n${RESULTS_BEGIN}\n${b64}${RESULTS_END}\n`;
    writeFileSync(join(dir, 'log.txt'), log);
    const collect = k8sCommands(base, 'job.yaml')
      .split('\n')
      .find((l) => l.includes('sed -n'))!
      .replace(/^\s*\|\s*/, '')
      .replace(/\$\{?i\}?/g, '0')
      .replace('bench-big-results', join(dir, 'out'));
    mkdirSync(join(dir, 'out', 'shard-0'), { recursive: true });
    execFileSync('sh', ['-c', `cat ${join(dir, 'log.txt')} | ${collect}`]);
    expect(readdirSync(join(dir, 'out', 'shard-0', 'run-shard-0'))).toEqual(['summary.json']);
  });

  it('keeps header values and the API key out of the ConfigMap and gives the pods api_key_env from the Secret', () => {
    const planText =
      'name: big\ntarget:\n  url: http://vllm.svc:8000\n  api_key_env: VLLM_KEY\n  headers:\n    X-Tenant-Token: tt-secret-value\n';
    const docs = parseAllDocuments(
      renderK8sYaml({ ...base, planText, apiKey: { env: 'VLLM_KEY', value: 'sk-live-123' } }),
    ).map((d) => d.toJSON() as Record<string, unknown>);
    for (const d of docs) validate(d);
    const [secret, configMap, job] = docs as [
      { stringData: Record<string, string> },
      Record<string, unknown>,
      { spec: { template: { spec: { containers: { env: unknown[] }[]; volumes: unknown[] } } } },
    ];
    expect(JSON.stringify(configMap)).not.toMatch(/tt-secret-value|sk-live-123/);
    expect(JSON.stringify(job)).not.toMatch(/tt-secret-value|sk-live-123/);
    expect(secret.stringData).toEqual({ 'plan.yaml': planText, 'api-key': 'sk-live-123' });
    const pod = job.spec.template.spec;
    expect(pod.containers[0]!.env).toContainEqual({
      name: 'VLLM_KEY',
      valueFrom: { secretKeyRef: { name: 'bench-big-plan', key: 'api-key' } },
    });
    // only the plan file is mounted: the key is a variable, not a file in /plan
    expect(pod.volumes).toContainEqual({
      name: 'plan',
      secret: { secretName: 'bench-big-plan', items: [{ key: 'plan.yaml', path: 'plan.yaml' }] },
    });
  });

  it('warns about a loopback target or clock reference, which a pod cannot reach', () => {
    expect(unreachableFromPods('http://127.0.0.1:8000', null)[0]).toMatch(
      /inside a pod that is the pod itself/,
    );
    expect(unreachableFromPods('http://localhost:30000', 'http://[::1]:80')).toHaveLength(2);
    expect(unreachableFromPods('http://vllm.serving.svc:8000', 'http://ntp-ref:8080')).toEqual([]);
  });
});
