#!/usr/bin/env node
import { main } from '../src/rl-rewards.ts';

await main(process.argv);
