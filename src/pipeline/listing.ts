/** The file for list-shaped answers (apps, access check): a header and one line per item. */
export function renderListingFile(
  tool: string,
  listing: { title: string; lines: string[] },
  screenshot: string | undefined,
  screenshotError: string | undefined,
): string {
  const header = [
    `# ${tool}: ${listing.title}`,
    `# items: ${listing.lines.length}`,
    `# screenshot: ${screenshot ?? `none (${screenshotError ?? 'not taken'})`}`,
  ];
  return `${header.join('\n')}\n${listing.lines.join('\n')}\n`;
}
