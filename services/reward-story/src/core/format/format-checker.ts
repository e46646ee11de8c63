import { AppError, ErrorCode } from '@rl/service-kit/core';
import { LRUCache } from 'lru-cache';
import type { OutputFormat } from '../story-item.ts';
import { compileJsonSchemaCheck } from './json-schema-check.ts';
import { compileRegexCheck, type FormatCheck } from './regex-check.ts';

/** Compiles output-format specs once and reuses them across items and requests. */
export interface FormatChecker {
  /**
   * The check for `spec`. `field` names where the spec came from
   * (`context.output_format` or `extra_info.output_format`) for the error a bad
   * regex or schema raises: `invalid_params`, status 400.
   */
  compile(spec: OutputFormat, field: string): FormatCheck;
}

/** Default number of compiled specs kept. */
export const DEFAULT_FORMAT_CACHE_ENTRIES = 256;

/**
 * A {@link FormatChecker} with an LRU cache keyed by the spec's JSON text.
 * Failures are cached too, so a dataset with one broken spec costs one compile.
 */
export function createFormatChecker(cacheEntries = DEFAULT_FORMAT_CACHE_ENTRIES): FormatChecker {
  const cache = new LRUCache<string, FormatCheck | { failure: string; subfield: string }>({ max: cacheEntries });
  return {
    compile(spec, field) {
      const key = JSON.stringify(spec);
      let entry = cache.get(key);
      if (entry === undefined) {
        entry = build(spec);
        cache.set(key, entry);
      }
      if (typeof entry === 'function') return entry;
      throw new AppError(ErrorCode.InvalidParams, `${field}.${entry.subfield}: ${entry.failure}`, { details: { field: `${field}.${entry.subfield}` } });
    },
  };
}

function build(spec: OutputFormat): FormatCheck | { failure: string; subfield: string } {
  const subfield = spec.type === 'regex' ? 'pattern' : 'schema';
  try {
    return spec.type === 'regex' ? compileRegexCheck(spec.pattern, spec.flags) : compileJsonSchemaCheck(spec.schema);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return {
      failure: spec.type === 'regex' ? `not a valid RE2 regex: ${message}` : `not a usable JSON schema: ${message.replace(/^schema(\.|: )?/, '')}`,
      subfield,
    };
  }
}
