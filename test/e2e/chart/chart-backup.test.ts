// The chart's scheduled backup (backup.*): off by default; on, a CronJob in the gateway image that
// runs files/backup.mjs with the admin key and the passphrase from Secrets, into a PVC (kept on
// uninstall) and/or a URL from a Secret, under the restricted pod standard and its own
// NetworkPolicy. The script itself runs against a real gateway in test/e2e/backup.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chartDir, find, Helm, parseManifests, VALUE_SETS } from './support.js';

const RELEASE = 'sb';
const NS = 'messaging';
const FULL = `${RELEASE}-switchboard`;
const ON = { backup: { enabled: true, passphraseSecret: { name: 'backup-passphrase' } } };

describe('chart: scheduled backup', () => {
  const helm = new Helm();
  afterAll(() => helm.cleanup());
  const render = async (...values: object[]) => parseManifests(await helm.template(RELEASE, NS, VALUE_SETS.defaults, ...values));

  it('is off by default: no CronJob, ConfigMap, PVC or policy of it', async () => {
    const manifests = await render();
    expect(manifests.filter((m) => m.metadata.name === `${FULL}-backup`)).toEqual([]);
  });

  it('on: a CronJob in the gateway image running the chart’s script with the admin key and passphrase from Secrets, into a PVC kept on uninstall', async () => {
    const manifests = await render(ON, { backup: { schedule: '0 */6 * * *', timeZone: 'Europe/Berlin', keep: 3 } });
    const cron = find(manifests, 'CronJob', `${FULL}-backup`);
    expect(cron.spec).toMatchObject({ schedule: '0 */6 * * *', timeZone: 'Europe/Berlin', concurrencyPolicy: 'Forbid' });
    const pod = cron.spec.jobTemplate.spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    const [container] = pod.containers;
    expect(container.image).toMatch(/\/gateway:/);
    expect(container.command).toEqual(['node', '/scripts/backup.mjs']);
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e.value ?? e.valueFrom.secretKeyRef]));
    expect(env).toEqual({
      SWITCHBOARD_URL: `http://${FULL}-gateway:80`,
      SWITCHBOARD_API_KEY: { name: `${FULL}-api-key`, key: 'api-key' },
      SWITCHBOARD_BACKUP_PASSPHRASE: { name: 'backup-passphrase', key: 'passphrase' },
      BACKUP_KEEP: '3',
      BACKUP_DIR: '/backup',
    });
    expect(container.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.resources.limits.memory).toBeTruthy();
    const volumes = Object.fromEntries(pod.volumes.map((v: any) => [v.name, v]));
    expect(volumes.archives.persistentVolumeClaim.claimName).toBe(`${FULL}-backup`);
    expect(volumes.tmp.emptyDir).toEqual({});
    const pvc = find(manifests, 'PersistentVolumeClaim', `${FULL}-backup`);
    expect(pvc.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    // The script in the ConfigMap is the chart's file, as it is.
    expect(find(manifests, 'ConfigMap', `${FULL}-backup`).data['backup.mjs']).toBe(readFileSync(join(chartDir, 'files/backup.mjs'), 'utf8'));
  });

  it('an existing claim, an upload URL from a Secret, and another admin key Secret (when apiKey holds a hash)', async () => {
    const manifests = await render(ON, {
      backup: {
        persistence: { existingClaim: 'archives' },
        upload: { urlSecret: { name: 'backup-target', key: 'webdav' } },
        apiKeySecret: { name: 'plain-admin-key', key: 'key' },
      },
    });
    expect(manifests.some((m) => m.kind === 'PersistentVolumeClaim' && m.metadata.name === `${FULL}-backup`)).toBe(false);
    const pod = find(manifests, 'CronJob', `${FULL}-backup`).spec.jobTemplate.spec.template.spec;
    expect(pod.volumes.find((v: any) => v.name === 'archives').persistentVolumeClaim.claimName).toBe('archives');
    const env = Object.fromEntries(pod.containers[0].env.map((e: any) => [e.name, e.value ?? e.valueFrom.secretKeyRef]));
    expect(env.BACKUP_UPLOAD_URL).toEqual({ name: 'backup-target', key: 'webdav' });
    expect(env.SWITCHBOARD_API_KEY).toEqual({ name: 'plain-admin-key', key: 'key' });
    // Its policy: DNS, the gateway's port, and the upload ports anywhere.
    const policy = find(manifests, 'NetworkPolicy', `${FULL}-backup`);
    expect(policy.spec.podSelector.matchLabels['app.kubernetes.io/component']).toBe('backup');
    expect(policy.spec.egress).toHaveLength(3);
    expect(policy.spec.egress[1]).toMatchObject({
      ports: [{ port: 'http' }],
      to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/component': 'gateway' } } }],
    });
    expect(policy.spec.egress[2]).toEqual({
      ports: [
        { port: 443, protocol: 'TCP' },
        { port: 80, protocol: 'TCP' },
      ],
    });
  });

  it('a gateway open only to some peers is open to the backup job too', async () => {
    const from = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } } }];
    const gateway = (values: object[]) => render(...values).then((m) => find(m, 'NetworkPolicy', `${FULL}-gateway`).spec.ingress[0].from);
    expect(await gateway([{ networkPolicy: { gateway: { from } } }])).toEqual(from);
    expect(await gateway([ON, { networkPolicy: { gateway: { from } } }])).toEqual([
      ...from,
      {
        podSelector: {
          matchLabels: { 'app.kubernetes.io/name': 'switchboard', 'app.kubernetes.io/instance': RELEASE, 'app.kubernetes.io/component': 'backup' },
        },
      },
    ]);
  });

  it('refuses to render without a passphrase Secret, or with nowhere to put the archives', async () => {
    const noPassphrase = await helm.run(['template', RELEASE, chartDir, ...helm.valuesArgs(VALUE_SETS.defaults), '--set', 'backup.enabled=true']);
    expect(noPassphrase.code).not.toBe(0);
    expect(noPassphrase.stderr).toContain('backup.passphraseSecret.name');
    const nowhere = await helm.run([
      'template',
      RELEASE,
      chartDir,
      ...helm.valuesArgs(VALUE_SETS.defaults),
      ...helm.valuesArgs(ON),
      '--set',
      'backup.persistence.enabled=false',
    ]);
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.stderr).toContain('backup.upload.urlSecret.name');
  });

  it('the values schema refuses a misspelt backup key and a keep below 1', async () => {
    for (const values of [{ backup: { enabeld: true } }, { backup: { keep: 0 } }]) {
      const r = await helm.run(['template', RELEASE, chartDir, ...helm.valuesArgs(VALUE_SETS.defaults), ...helm.valuesArgs(values)]);
      expect(r.code, JSON.stringify(values)).not.toBe(0);
    }
  });
});
