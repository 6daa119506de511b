{{/*
The gateway's media conversions (gateway.conversions; docs/operations.md, "Media conversion")
size its /tmp and, unless gateway.resources.limits.memory is set, its memory limit. Each running
conversion keeps its input and its output (32 MiB each at most) in /tmp, and takes up to 512 MiB
of memory: ffmpeg decoding a 4K video with two threads (about 340 MiB), and the gateway holding
the file, the result and its base64 answer. 384 MiB are the gateway's own; 32 MiB of /tmp are left
for everything else.
*/}}
{{- define "switchboard.gateway.tmpSize" -}}
{{ add 32 (mul .Values.gateway.conversions.running 64) }}Mi
{{- end -}}

{{- define "switchboard.gateway.resources" -}}
{{- $resources := deepCopy .Values.gateway.resources -}}
{{- $limits := default (dict) $resources.limits -}}
{{- if not (hasKey $limits "memory") -}}
{{- $_ := set $limits "memory" (printf "%dMi" (add 384 (mul .Values.gateway.conversions.running 512) | int)) -}}
{{- end -}}
{{- $_ := set $resources "limits" $limits -}}
{{- toYaml $resources -}}
{{- end -}}
