// Escaping for HTML and SVG text and attributes: every string from a server, a plan or a file goes through here.

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(s: string): string {
  return String(s).replace(/[&<>"']/g, (ch) => ENTITIES[ch]);
}
