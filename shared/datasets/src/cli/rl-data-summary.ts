import type { ConversionReport } from '../convert-run.ts';
import type { StoryStats } from '../story-convert.ts';

/** Lines describing a conversion: counts, where it went, and every listed skip with its reason. */
export function formatReport(report: ConversionReport, rowNoun: string, output: string | undefined): string[] {
  const lines = [
    `records: ${report.records} (${report.records - report.skipped} converted, ${report.skipped} skipped)`,
    `${rowNoun}: ${report.rows}${output === undefined ? ' (dry run, nothing written)' : ` written to ${output}`}`,
  ];
  if (report.skipped > 0) {
    lines.push('skipped records:');
    for (const s of report.skippedList) lines.push(`  ${s.label}: ${s.reason}`);
    const unlisted = report.skipped - report.skippedList.length;
    if (unlisted > 0) lines.push(`  ... and ${unlisted} more`);
  }
  return lines;
}

/** Lines with the story-specific counts and the samples-per-conversation histogram. */
export function formatStoryStats(stats: StoryStats): string[] {
  const lines = [
    `conversations: ${stats.conversations} (${stats.conversationsWithoutSamples} without any sample)`,
    `turns: ${stats.emptyTurns} empty (kept), ${stats.mergedTurns} merged into the previous turn of the same role, ` +
      `${stats.leadingAssistantTurns} opening assistant turns (context only), ${stats.trailingUserTurns} trailing user turns (no sample)`,
  ];
  const counts = [...stats.samplesPerConversation.entries()].sort(([a], [b]) => a - b);
  if (counts.length === 0) return lines;
  const widest = Math.max(...counts.map(([, n]) => n));
  lines.push('samples per conversation:');
  for (const [samples, conversations] of counts) {
    const bar = '#'.repeat(Math.max(1, Math.round((conversations / widest) * 40)));
    lines.push(`  ${String(samples).padStart(4)} | ${bar} ${conversations}`);
  }
  return lines;
}
