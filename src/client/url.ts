// The one way benchgate joins a target's base URL (which may carry a path prefix) and an endpoint path.

/** `http://h:1/prefix/` + `v1/models` → `http://h:1/prefix/v1/models` (one slash between, prefix kept). */
export function joinUrl(baseUrl: string, path: string): string {
  return baseUrl.replace(/\/+$/, '') + (path.startsWith('/') ? path : `/${path}`);
}

/** scheme://host:port of a URL, with the default port made explicit, for same-origin comparisons. */
export function originOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' ? '443' : url.protocol === 'http:' ? '80' : '');
  return `${url.protocol}//${url.hostname}:${port}`;
}
