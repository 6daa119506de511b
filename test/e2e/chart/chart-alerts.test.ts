// The chart's alerts and Grafana dashboard (issue 31 §4, docs/operations.md "Alerts"): the
// PrometheusRule rendered by helm is checked by promtool (`check rules`), and its unit tests
// (promtool/alerts.test.yaml, `test rules`) give every alert a series that fires and one that does
// not; every metric the rules and the dashboard read is one docs/operations.md lists.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { chartDir, exec, find, Helm, type Manifest, parseManifests, promtoolBinary, repoRoot, VALUE_SETS } from './support.js';

const RELEASE = 'sb';
const NS = 'messaging';
const ENABLED = { monitoring: { prometheusRule: { enabled: true }, grafanaDashboard: { enabled: true } } };
const UNIT_TESTS = join(repoRoot, 'test/e2e/chart/promtool/alerts.test.yaml');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
}
interface AlertTest {
  alertname: string;
  exp_alerts?: unknown[] | null;
}

/**
 * The metric names docs/operations.md's tables list (the first cell of each row): a name, and
 * siblings written as its last word replaced (`switchboard_x_running`, `_waiting`).
 */
function documentedMetrics(): Set<string> {
  const names = new Set<string>();
  for (const line of readFileSync(join(repoRoot, 'docs/operations.md'), 'utf8').split('\n')) {
    const cell = /^\| (`switchboard_[^|]*)\|/.exec(line)?.[1];
    if (!cell) continue;
    const [first, ...siblings] = [...cell.matchAll(/`([a-z_:]+)`/g)].map((m) => m[1]!);
    names.add(first!);
    for (const sibling of siblings) names.add(first!.replace(/_[a-z]+$/, sibling));
  }
  return names;
}

/** The product's metric names an expression reads, histogram series by their histogram's name. */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\bswitchboard_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|sum|count)$/, ''));
}

describe('chart: alerts and Grafana dashboard (monitoring values)', () => {
  const helm = new Helm();
  const work = mkdtempSync(join(tmpdir(), 'switchboard-alerts-'));
  afterAll(() => {
    helm.cleanup();
    rmSync(work, { recursive: true, force: true });
  });
  const render = async (...values: object[]) => parseManifests(await helm.template(RELEASE, NS, VALUE_SETS.defaults, ...values));
  const rulesOf = (manifests: Manifest[]): { name: string; rules: Rule[] }[] =>
    find(manifests, 'PrometheusRule', `${RELEASE}-switchboard`).spec.groups;
  const alertsOf = (manifests: Manifest[]): Rule[] => rulesOf(manifests).flatMap((group) => group.rules.filter((rule) => rule.alert));

  it('renders neither unless asked', async () => {
    const manifests = await render();
    expect(manifests.filter((m) => m.kind === 'PrometheusRule')).toEqual([]);
    expect(manifests.filter((m) => m.kind === 'ConfigMap' && m.metadata.name.endsWith('-dashboard'))).toEqual([]);
  });

  it('renders a PrometheusRule that promtool check rules accepts, with the alerts of issue 31', async () => {
    const rules = join(work, 'rules.yaml');
    writeFileSync(rules, stringify({ groups: rulesOf(await render(ENABLED)) }));
    const r = await exec(promtoolBinary(), ['check', 'rules', rules]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
    expect(alertsOf(await render(ENABLED)).map((rule) => rule.alert)).toEqual([
      'SwitchboardSessionNotWorking',
      'SwitchboardSessionsFailing',
      'SwitchboardSessionSilences',
      'SwitchboardSessionQuiet',
      'SwitchboardWebhookFailureRatio',
      'SwitchboardDeadLettersGrowing',
      'SwitchboardEventLagHigh',
      'SwitchboardNatsNotCurrent',
      'SwitchboardRolloutHalted',
    ]);
  });

  it('fires every alert on one series and keeps it quiet on another (promtool test rules)', async () => {
    const alerts = alertsOf(await render(ENABLED)).map((rule) => rule.alert!);
    const dir = mkdtempSync(join(work, 'test-'));
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups: rulesOf(await render(ENABLED)) }));
    copyFileSync(UNIT_TESTS, join(dir, 'alerts.test.yaml'));
    const r = await exec(promtoolBinary(), ['test', 'rules', join(dir, 'alerts.test.yaml')]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');

    const tests = (parse(readFileSync(UNIT_TESTS, 'utf8')) as { tests: { alert_rule_test?: AlertTest[] }[] }).tests.flatMap(
      (t) => t.alert_rule_test ?? [],
    );
    for (const alert of alerts) {
      const its = tests.filter((t) => t.alertname === alert);
      expect(
        its.some((t) => (t.exp_alerts ?? []).length > 0),
        `${alert}: a test where it fires`,
      ).toBe(true);
      expect(
        its.some((t) => (t.exp_alerts ?? []).length === 0),
        `${alert}: a test where it stays quiet`,
      ).toBe(true);
    }
    expect(new Set(tests.map((t) => t.alertname))).toEqual(new Set(alerts));
  });

  it('takes its thresholds, severities and labels from the values', async () => {
    const manifests = await render({
      monitoring: {
        prometheusRule: {
          enabled: true,
          labels: { release: 'kube-prometheus-stack' },
          alertLabels: { team: 'messaging' },
          sessionNotWorking: { minutes: 30, severity: 'critical' },
          sessionsFailing: { share: 0.5, minCount: 10 },
        },
      },
    });
    expect(find(manifests, 'PrometheusRule', `${RELEASE}-switchboard`).metadata.labels.release).toBe('kube-prometheus-stack');
    const alerts = Object.fromEntries(alertsOf(manifests).map((rule) => [rule.alert, rule]));
    expect(alerts.SwitchboardSessionNotWorking!.for).toBe('30m');
    expect(alerts.SwitchboardSessionNotWorking!.labels).toEqual({ severity: 'critical', team: 'messaging' });
    expect(alerts.SwitchboardSessionsFailing!.expr).toContain('>= 10)');
    expect(alerts.SwitchboardSessionsFailing!.expr).toContain('>= 0.5)');
  });

  it('refuses a share outside 0 to 1, naming the value', async () => {
    const r = await helm.run([
      'template',
      RELEASE,
      chartDir,
      ...helm.valuesArgs(VALUE_SETS.defaults),
      ...helm.valuesArgs({ monitoring: { prometheusRule: { enabled: true, webhookFailures: { ratio: 2 } } } }),
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('/monitoring/prometheusRule/webhookFailures/ratio');
  });

  it('ships the dashboard as well-formed JSON in a ConfigMap the Grafana sidecar finds', async () => {
    const map = find(await render(ENABLED), 'ConfigMap', `${RELEASE}-switchboard-dashboard`);
    expect(map.metadata.labels.grafana_dashboard).toBe('1');
    const dashboard = JSON.parse(map.data['switchboard.json']) as { uid: string; panels: { title: string; targets: { expr: string }[] }[] };
    expect(dashboard).toEqual(JSON.parse(readFileSync(join(chartDir, 'files/grafana-dashboard.json'), 'utf8')));
    expect(dashboard.panels.map((panel) => panel.title)).toEqual([
      'Sessions by status',
      'Events per second',
      'Webhook success ratio',
      'Event lag',
      'Dead deliveries',
      'Silent connections and reconnects',
      'Age of the last event',
      'Send queue depth',
      'Rollouts',
      'NATS copies missing',
    ]);
  });

  it('reads only metrics docs/operations.md lists, in every panel and every alert', async () => {
    const documented = documentedMetrics();
    const map = find(await render(ENABLED), 'ConfigMap', `${RELEASE}-switchboard-dashboard`);
    const dashboard = JSON.parse(map.data['switchboard.json']) as { panels: { title: string; targets: { expr: string }[] }[] };
    const exprs = [
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr }))),
      ...alertsOf(await render(ENABLED)).map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
    ];
    for (const { where, expr } of exprs) {
      expect(metricsIn(expr).length, `${where} reads a Switchboard metric`).toBeGreaterThan(0);
      for (const metric of metricsIn(expr)) expect(documented.has(metric), `${where}: ${metric} is not in docs/operations.md`).toBe(true);
    }
  });
});
