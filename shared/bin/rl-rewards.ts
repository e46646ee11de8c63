#!/usr/bin/env node
import { main } from '../src/cli/rl-rewards.ts';

await main(process.argv);
