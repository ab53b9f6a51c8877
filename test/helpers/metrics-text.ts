/** The value of the series of `name` whose labels include `labels` (undefined when there is none). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const brace = line.indexOf('{');
    const labelText = brace === name.length ? line.slice(brace + 1, line.lastIndexOf('}')) : '';
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}
