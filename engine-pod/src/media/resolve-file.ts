import { posix } from 'node:path';
import { describeRefusal } from '@switchboard/kube/pod';
import { decodeBase64, MediaFilename, MediaMimetype } from '@switchboard/protocol';
import type { Dispatcher, Response } from 'undici';
import { CommandError, invalidField as invalid } from '../command-error.js';
import { dispatcherOf, type Downloads } from '../outbound/downloads.js';
import { blockedAddressOf } from '../outbound/guarded-lookup.js';
import type { MediaFile } from './media-store.js';

/** A file as a send request gives it: by URL or by base64 data (protocol FileInput). */
export interface FileSource {
  readonly mimetype?: string | undefined;
  readonly filename?: string | null | undefined;
  readonly url?: string | undefined;
  readonly data?: string | undefined;
}

export interface DownloadLimits {
  /** Larger downloads are refused, without reading further. */
  readonly maxBytes: number;
  /** For the whole download. Below the 10 s a cluster gateway waits for a command's answer. */
  readonly timeoutMs: number;
}

const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = { maxBytes: 32 * 1024 * 1024, timeoutMs: 8_000 };

const OCTET_STREAM = 'application/octet-stream';

/**
 * The bytes of a file to send, from base64 `data` or downloaded from `url` (http and https only)
 * through `downloads`, the agent that holds every connection to the outbound address policy
 * (`../outbound/guarded-agent.ts`), the redirects' too. `field` is where the file sits in the
 * request body (`file`, `preview.image`), so that a failure is a 400 naming `body.<field>.data`
 * or `body.<field>.url` and the reason (`body.url` when `field` is empty: the body is the file). The MIME type is the request's, else the download's
 * Content-Type; the file name the request's, else the URL's last path segment.
 */
export async function resolveFile(
  source: FileSource,
  field: string,
  downloads: Downloads,
  limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS,
): Promise<MediaFile> {
  const at = (member: string) => (field ? `${field}.${member}` : member);
  if (source.data !== undefined) {
    const data = decodeBase64(source.data);
    if (!data) throw invalid(at('data'), 'must be base64');
    return { mimetype: source.mimetype ?? OCTET_STREAM, filename: source.filename ?? null, data };
  }
  if (source.url === undefined) throw invalid(at('url'), 'give url (http or https) or data (base64)');
  const url = parseHttpUrl(source.url, at('url'));
  const { data, contentType } = await download(url, at('url'), await dispatcherOf(downloads), limits);
  return {
    mimetype: source.mimetype ?? (MediaMimetype.safeParse(contentType).success ? contentType! : OCTET_STREAM),
    filename: source.filename ?? filenameOf(url),
    data,
  };
}

function parseHttpUrl(value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(field, 'must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(field, 'must be an http or https URL');
  return url;
}

async function download(
  url: URL,
  field: string,
  dispatcher: Dispatcher,
  limits: DownloadLimits,
): Promise<{ data: Buffer; contentType: string | null }> {
  const failed = (reason: string) => invalid(field, `could not be downloaded: ${reason}`);
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    // Loaded with the first download, not with the pod (see ../outbound/downloads.ts).
    const { fetch } = await import('undici');
    response = await fetch(url, { signal, redirect: 'follow', dispatcher });
  } catch (error) {
    throw failed(whyFetchFailed(error, limits));
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw failed(`the server answered ${response.status}`);
  }
  const tooLarge = () => failed(`it is larger than ${limits.maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? 0) > limits.maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(Buffer.from(chunk));
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw failed(whyFetchFailed(error, limits));
  }
  return { data: Buffer.concat(chunks, size), contentType: response.headers.get('content-type') };
}

/** What a user can act on: the policy's refusal, a timeout, or the network error's code (ECONNREFUSED, ENOTFOUND ...). */
function whyFetchFailed(error: unknown, limits: DownloadLimits): string {
  const refusal = blockedAddressOf(error);
  if (refusal) return describeRefusal(refusal);
  const failure = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') return `no complete answer within ${limits.timeoutMs} ms`;
  return failure.cause?.code ?? failure.cause?.message ?? failure.message ?? String(error);
}

function filenameOf(url: URL): string | null {
  let last: string;
  try {
    last = decodeURIComponent(posix.basename(url.pathname));
  } catch {
    return null;
  }
  return MediaFilename.safeParse(last).success ? last : null;
}
