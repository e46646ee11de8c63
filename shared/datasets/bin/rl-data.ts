#!/usr/bin/env node
import { main } from '../src/cli/rl-data.ts';

await main(process.argv);
