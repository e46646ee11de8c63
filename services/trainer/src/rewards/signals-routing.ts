import { compileRoutes, resolveRoute, STORY_SUBJECT } from '@rl/client';

/**
 * Which data sources get story signals (reward.signals): every one (true),
 * none (false), or, by default (null), those routed to the story reward.
 */
export function signalsPredicate(routes: Readonly<Record<string, string>>, enabled: boolean | null): (dataSource: string) => boolean {
  if (enabled !== null) return () => enabled;
  const table = compileRoutes(routes);
  return (dataSource) => resolveRoute(table, dataSource) === STORY_SUBJECT;
}
