{{/* Names ------------------------------------------------------------------------------------ */}}

{{- define "switchboard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-switchboard, or the release name when it already contains the chart name. Kept
short enough that "<fullname>-operator" and "<fullname>-nats-headless" fit in 63 characters. */}}
{{- define "switchboard.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 48 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 48 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "switchboard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "switchboard.gateway.fullname" -}}{{ include "switchboard.fullname" . }}-gateway{{- end -}}
{{- define "switchboard.operator.fullname" -}}{{ include "switchboard.fullname" . }}-operator{{- end -}}
{{- define "switchboard.nats.fullname" -}}{{ include "switchboard.fullname" . }}-nats{{- end -}}

{{/* Labels ----------------------------------------------------------------------------------- */}}

{{/* Labels of every object; call with (dict "ctx" $ "component" "gateway"). */}}
{{- define "switchboard.labels" -}}
helm.sh/chart: {{ include "switchboard.chart" .ctx }}
{{ include "switchboard.selectorLabels" . }}
app.kubernetes.io/version: {{ (default .ctx.Chart.AppVersion .ctx.Values.image.tag) | toString | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
app.kubernetes.io/part-of: switchboard
{{- end -}}

{{- define "switchboard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchboard.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
{{- if .component }}
app.kubernetes.io/component: {{ .component }}
{{- end }}
{{- end -}}

{{/* The labels the operator puts on every engine pod (operator/src/reconcile/engine-pod-spec.ts):
fixed, whatever nameOverride says, and without an instance label. */}}
{{- define "switchboard.enginePodSelector" -}}
app.kubernetes.io/name: switchboard
app.kubernetes.io/component: engine
{{- end -}}

{{/* Images ----------------------------------------------------------------------------------- */}}

{{/* <registry>/<repository>:<tag> of one Switchboard image; call with (dict "ctx" $ "repository" "gateway"). */}}
{{- define "switchboard.image" -}}
{{- $registry := trimSuffix "/" .ctx.Values.image.registry -}}
{{- $repository := index .ctx.Values.image.repositories .repository -}}
{{- $tag := default .ctx.Chart.AppVersion .ctx.Values.image.tag | toString -}}
{{- if $registry -}}
{{- printf "%s/%s:%s" $registry $repository $tag -}}
{{- else -}}
{{- printf "%s:%s" $repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "switchboard.natsImage" -}}
{{- $image := .Values.nats.bundled.image -}}
{{- if $image.registry -}}
{{- printf "%s/%s:%s" (trimSuffix "/" $image.registry) $image.repository ($image.tag | toString) -}}
{{- else -}}
{{- printf "%s:%s" $image.repository ($image.tag | toString) -}}
{{- end -}}
{{- end -}}

{{/* The pods' imagePullSecrets, or nothing; call as
{{- with include "switchboard.imagePullSecrets" . }}{{ . | nindent 6 }}{{- end }} */}}
{{- define "switchboard.imagePullSecrets" -}}
{{- with .Values.image.pullSecrets -}}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* NATS and the admin key --------------------------------------------------------------------- */}}

{{- define "switchboard.natsBundled" -}}
{{- if and .Values.nats.bundled.enabled (not .Values.nats.external.url) -}}true{{- end -}}
{{- end -}}

{{/* The URL every component connects to: the external one, or the bundled NATS Service. */}}
{{/* Copies of each stream and bucket: the external NATS's setting, or as many as the bundled NATS has servers. */}}
{{- define "switchboard.natsReplicas" -}}
{{- if .Values.nats.external.url -}}
{{- .Values.nats.external.replicas -}}
{{- else -}}
{{- .Values.nats.bundled.replicas -}}
{{- end -}}
{{- end -}}

{{/* SWITCHBOARD_NATS_SEED with a bundled NATS cluster: server 0, the one that ran alone before
the cluster if it ever did. nats-server deletes a single server's streams 30 s after it joins a
cluster; created first on it, they are kept (kube/src/nats/replication.ts). */}}
{{- define "switchboard.natsSeedEnv" -}}
{{- if include "switchboard.natsClustered" . }}
- name: SWITCHBOARD_NATS_SEED
  value: {{ printf "%s-0" (include "switchboard.nats.fullname" .) | quote }}
{{- end }}
{{- end -}}

{{/* "true" when the bundled NATS is a JetStream cluster (more than one server). */}}
{{- define "switchboard.natsClustered" -}}
{{- if and (include "switchboard.natsBundled" .) (gt (int .Values.nats.bundled.replicas) 1) -}}true{{- end -}}
{{- end -}}

{{- define "switchboard.natsUrl" -}}
{{- if .Values.nats.external.url -}}
{{- .Values.nats.external.url -}}
{{- else if .Values.nats.bundled.enabled -}}
{{- printf "nats://%s.%s.svc:4222" (include "switchboard.nats.fullname" .) .Release.Namespace -}}
{{- else -}}
{{- fail "NATS: set nats.external.url, or leave nats.bundled.enabled true" -}}
{{- end -}}
{{- end -}}

{{- define "switchboard.apiKeySecretName" -}}
{{- default (printf "%s-api-key" (include "switchboard.fullname" .)) .Values.apiKey.existingSecret -}}
{{- end -}}

{{- define "switchboard.apiKeySecretKey" -}}
{{- if .Values.apiKey.existingSecret -}}{{ .Values.apiKey.existingSecretKey }}{{- else -}}api-key{{- end -}}
{{- end -}}

{{/* The generated admin key: the one already in the cluster (so upgrades keep it), else a new
one, "sb_" and 43 random alphanumerics (crypto/rand: 256 bits, as the gateway's own keys).
lookup answers nothing under `helm template` and client-side dry runs, which therefore show a
fresh key each time; `helm install` and `helm upgrade` read the real Secret. */}}
{{- define "switchboard.generatedApiKey" -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "switchboard.apiKeySecretName" .) -}}
{{- if and $existing $existing.data (index $existing.data "api-key") -}}
{{- index $existing.data "api-key" | b64dec -}}
{{- else -}}
{{- printf "sb_%s" (randAlphaNum 43) -}}
{{- end -}}
{{- end -}}

{{/* Security contexts: the restricted Pod Security standard ------------------------------------ */}}

{{- define "switchboard.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "switchboard.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "switchboard.logLevel" -}}
{{- default .root.Values.logLevel .level -}}
{{- end -}}

{{- define "switchboard.operator.leaseName" -}}
{{- default (include "switchboard.operator.fullname" .) .Values.operator.leaseName -}}
{{- end -}}

{{/* The bundled nats-server's configuration (its pod restarts when this changes). auth.conf is
the operator's: operator mode, its JWTs (operator/src/nats-auth/nats-auth.ts). */}}
{{- define "switchboard.natsConfig" -}}
port: 4222
http_port: 8222
server_name: $POD_NAME
jetstream {
  store_dir: /data
  max_file_store: {{ .Values.nats.bundled.jetstream.maxFileStore }}
  max_memory_store: {{ .Values.nats.bundled.jetstream.maxMemoryStore }}
}
{{- if include "switchboard.natsClustered" . }}
{{- $headless := printf "%s-headless.%s.svc" (include "switchboard.nats.fullname" .) .Release.Namespace }}
# A JetStream cluster: every server routes to every pod by its stable DNS name (its own route is
# skipped). Routes carry no credentials: the NetworkPolicy lets only this release's NATS pods reach
# port 6222 (docs/operations.md, "NATS replication").
# Each server tagged with its pod name: the product creates a missing stream on server 0 first,
# where a single server's streams are when it grew into this cluster (SWITCHBOARD_NATS_SEED).
server_tags: [$POD_NAME]
cluster {
  name: {{ include "switchboard.nats.fullname" . }}
  port: 6222
  routes: [
    {{- range $i := until (int .Values.nats.bundled.replicas) }}
    nats-route://{{ include "switchboard.nats.fullname" $ }}-{{ $i }}.{{ $headless }}:6222
    {{- end }}
  ]
}
{{- end }}
{{- if include "switchboard.natsAuth" . }}
include ./auth.conf
{{- end }}
{{- end -}}

{{/* "true" when the bundled NATS runs with authentication. */}}
{{- define "switchboard.natsAuth" -}}
{{- if and (include "switchboard.natsBundled" .) .Values.nats.bundled.auth.enabled -}}true{{- end -}}
{{- end -}}

{{/* The Secret the operator makes with the bundled NATS's keys, JWTs and credentials. */}}
{{- define "switchboard.natsAuthSecretName" -}}{{ include "switchboard.fullname" . }}-nats-auth{{- end -}}

{{/* "true" when an external NATS takes credentials from a Secret. */}}
{{- define "switchboard.natsExternalCredentials" -}}
{{- if and .Values.nats.external.url .Values.nats.external.credentialsSecret.name -}}true{{- end -}}
{{- end -}}

{{/* SWITCHBOARD_NATS_CREDS of the gateway: its user of the bundled NATS, or the external one's. */}}
{{- define "switchboard.gatewayNatsCredentialsEnv" -}}
{{- if include "switchboard.natsAuth" . }}
- name: SWITCHBOARD_NATS_CREDS
  valueFrom:
    secretKeyRef:
      name: {{ include "switchboard.natsAuthSecretName" . }}
      key: gateway.creds
{{- else if include "switchboard.natsExternalCredentials" . }}
- name: SWITCHBOARD_NATS_CREDS
  valueFrom:
    secretKeyRef:
      name: {{ .Values.nats.external.credentialsSecret.name }}
      key: {{ .Values.nats.external.credentialsSecret.key }}
{{- end }}
{{- end -}}

{{/* The operator's: it makes and reads the bundled NATS's Secret itself, or is given the external one's. */}}
{{- define "switchboard.operatorNatsCredentialsEnv" -}}
{{- if include "switchboard.natsAuth" . }}
- name: SWITCHBOARD_NATS_AUTH_SECRET
  value: {{ include "switchboard.natsAuthSecretName" . | quote }}
{{- else if include "switchboard.natsExternalCredentials" . }}
{{- $secret := .Values.nats.external.credentialsSecret }}
- name: SWITCHBOARD_NATS_CREDS
  valueFrom:
    secretKeyRef:
      name: {{ $secret.name }}
      key: {{ $secret.key }}
# Engine pods read theirs from the same Secret.
- name: SWITCHBOARD_ENGINE_NATS_CREDS_SECRET
  value: {{ printf "%s/%s" $secret.name (default $secret.key $secret.engineKey) | quote }}
{{- end }}
{{- end -}}

{{/* SWITCHBOARD_OUTBOUND_DENY and _ALLOW from outbound.* (docs/operations.md, "Outbound address policy"). */}}
{{- define "switchboard.outboundEnv" -}}
- name: SWITCHBOARD_OUTBOUND_DENY
  value: {{ join "," .Values.outbound.deny | quote }}
- name: SWITCHBOARD_OUTBOUND_ALLOW
  value: {{ join "," .Values.outbound.allow | quote }}
{{- end -}}

{{/* Two ipBlocks, IPv4 and IPv6, for everywhere but the CIDRs given (NetworkPolicyPeers). */}}
{{- define "switchboard.ipBlocksExcept" -}}
{{- $v4 := list }}{{- $v6 := list }}
{{- range . }}
{{- if contains ":" . }}{{ $v6 = append $v6 . }}{{ else }}{{ $v4 = append $v4 . }}{{ end }}
{{- end -}}
- ipBlock:
    cidr: 0.0.0.0/0
    {{- with $v4 }}
    except:
      {{- toYaml . | nindent 6 }}
    {{- end }}
- ipBlock:
    cidr: ::/0
    {{- with $v6 }}
    except:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end -}}

{{/* Egress rules to DNS and to NATS (the bundled pod, or externalNatsPorts anywhere): the gateway's and the engines'. */}}
{{/* Egress to DNS: port 53, UDP and TCP, to networkPolicy.dns.to (the cluster's DNS pods), or any address when empty. */}}
{{- define "switchboard.egressToDns" -}}
- ports:
    - port: 53
      protocol: UDP
    - port: 53
      protocol: TCP
  {{- with .Values.networkPolicy.dns.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}

{{- define "switchboard.egressToDnsAndNats" -}}
{{ include "switchboard.egressToDns" . }}
{{- if include "switchboard.natsBundled" . }}
- ports:
    - port: 4222
      protocol: TCP
  to:
    - podSelector:
        matchLabels:
          {{- include "switchboard.selectorLabels" (dict "ctx" . "component" "nats") | nindent 10 }}
{{- else }}
- ports:
    {{- range .Values.networkPolicy.engines.externalNatsPorts }}
    - port: {{ . }}
      protocol: TCP
    {{- end }}
{{- end }}
{{- end -}}

{{/* Where the gateway's egress reaches the API server (NetworkPolicyPeers): networkPolicy.gateway.apiServer.to,
or else the addresses of the `kubernetes` Service's endpoints in `default`, looked up in the cluster (the
EndpointSlice, or the Endpoints of older clusters). A policy sees a pod's connection to the Service after it
was rewritten to an endpoint, so these are the addresses that matter. Never "anywhere": that would open 443
to every address and cancel webhookExcept. `helm template` and `helm lint` have no cluster to look in, so
they need the value (or networkPolicy.enabled=false). */}}
{{- define "switchboard.apiServerPeers" -}}
{{- $apiServer := .Values.networkPolicy.gateway.apiServer }}
{{- if $apiServer.to }}
{{- toYaml $apiServer.to }}
{{- else }}
{{- $addresses := list }}
{{- $slice := lookup "discovery.k8s.io/v1" "EndpointSlice" "default" "kubernetes" }}
{{- range (dig "endpoints" list $slice) }}
{{- range (.addresses | default list) }}{{ $addresses = append $addresses . }}{{ end }}
{{- end }}
{{- if not $addresses }}
{{- $endpoints := lookup "v1" "Endpoints" "default" "kubernetes" }}
{{- range (dig "subsets" list $endpoints) }}
{{- range (.addresses | default list) }}{{ $addresses = append $addresses .ip }}{{ end }}
{{- end }}
{{- end }}
{{- if not $addresses }}
{{- fail "networkPolicy.gateway.apiServer.to is empty and the API server's address could not be looked up (the EndpointSlice or Endpoints `kubernetes` in namespace `default`; `helm template`, `helm lint` and a client-side dry run have no cluster to look in): set it to the API server's addresses, e.g. --set-json 'networkPolicy.gateway.apiServer.to=[{\"ipBlock\":{\"cidr\":\"172.18.0.2/32\"}}]' (kubectl get endpointslice -n default -l kubernetes.io/service-name=kubernetes), or set networkPolicy.enabled=false" }}
{{- end }}
{{- range ($addresses | uniq) }}
- ipBlock:
    cidr: {{ . }}/{{ if contains ":" . }}128{{ else }}32{{ end }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Alerts ----------------------------------------------------------------------------------- */}}

{{/* The labels of one alert: its severity, and monitoring.prometheusRule.alertLabels; call with
(dict "severity" "warning" "extra" .Values.monitoring.prometheusRule.alertLabels). */}}
{{- define "switchboard.alertLabels" -}}
severity: {{ .severity }}
{{- with .extra }}
{{ toYaml . }}
{{- end }}
{{- end -}}
