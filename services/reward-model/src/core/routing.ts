// Which backend scores an item: `params.model` (a reward model) or
// `params.judge` (a judge) names one; otherwise the data-source map does
// (`*` is the default). Backends and the map are fixed at start-up: a request
// only picks among configured names, never brings its own.
import { AppError, ErrorCode } from '@rl/service-kit/core';
import type { RewardBackend } from './backend.ts';

/** Backends by name, and the data sources mapped to them. */
export interface Routes {
  readonly backends: ReadonlyMap<string, RewardBackend>;
  /** data_source -> backend name; the key `*` maps every other data source. */
  readonly dataSources: Readonly<Record<string, string>>;
}

/** The key of {@link Routes.dataSources} that maps every data source not named. */
export const DEFAULT_ROUTE = '*';

function named(routes: Routes, field: 'model' | 'judge', value: unknown): RewardBackend {
  if (typeof value !== 'string' || value === '') throw new AppError(ErrorCode.InvalidParams, `params.${field}: must be a backend name (a string)`);
  const backend = routes.backends.get(value);
  const kind = field === 'model' ? 'reward_model' : 'judge';
  if (backend === undefined || backend.kind !== kind) {
    const known = [...routes.backends.values()].filter((b) => b.kind === kind).map((b) => b.name);
    throw new AppError(
      ErrorCode.InvalidParams,
      `params.${field}: no ${field === 'model' ? 'reward model' : 'judge'} named ${JSON.stringify(value)} (configured: ${known.length === 0 ? 'none' : known.join(', ')})`,
    );
  }
  return backend;
}

/** The backend for one item; throws the item's error (`invalid_params`, `unknown_data_source`) when there is none. */
export function routeItem(routes: Routes, dataSource: string, params: Readonly<Record<string, unknown>> | undefined): RewardBackend {
  const model = params?.model;
  const judge = params?.judge;
  if (routes.backends.size === 0) {
    throw new AppError(
      ErrorCode.UnknownDataSource,
      'no reward model or judge is configured on this service (set REWARD_MODELS or REWARD_JUDGES_FILE and restart it)',
    );
  }
  if (model !== undefined && judge !== undefined) throw new AppError(ErrorCode.InvalidParams, 'params: give params.model or params.judge, not both');
  if (model !== undefined) return named(routes, 'model', model);
  if (judge !== undefined) return named(routes, 'judge', judge);
  const name = Object.hasOwn(routes.dataSources, dataSource) ? routes.dataSources[dataSource] : routes.dataSources[DEFAULT_ROUTE];
  if (name === undefined) {
    throw new AppError(
      ErrorCode.UnknownDataSource,
      `data_source ${JSON.stringify(dataSource)}: no backend is mapped to it (give params.model or params.judge, or map it in REWARD_ROUTES)`,
    );
  }
  const backend = routes.backends.get(name);
  // The map is checked against the backends at start-up; this is a guard, not a path.
  if (backend === undefined) throw new AppError(ErrorCode.Internal, `REWARD_ROUTES maps ${dataSource} to ${name}, which is not configured`);
  return backend;
}

/** {@link Routes} over `backends`; names used twice, or a data source mapped to no configured backend, are refused naming REWARD_ROUTES. */
export function buildRoutes(backends: readonly RewardBackend[], dataSources: Readonly<Record<string, string>>): Routes {
  const byName = new Map<string, RewardBackend>();
  for (const b of backends) {
    if (byName.has(b.name))
      throw new AppError(ErrorCode.InvalidConfig, `backend name ${JSON.stringify(b.name)} is used by two backends (a reward model and a judge, or two judges)`);
    byName.set(b.name, b);
  }
  for (const [source, name] of Object.entries(dataSources)) {
    if (!byName.has(name)) {
      throw new AppError(
        ErrorCode.InvalidConfig,
        `REWARD_ROUTES: ${source}=${name}: no backend named ${JSON.stringify(name)} (configured: ${[...byName.keys()].join(', ') || 'none'})`,
      );
    }
  }
  return { backends: byName, dataSources: { ...dataSources } };
}
