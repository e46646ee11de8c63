"""slime batch reward function for `--group-rm`: the whole group goes to a service's slime route in one request.

    --group-rm --custom-rm-path rl_rewards.slime.group_rm --rm-url http://reward-rules:8101/slime/openai/gsm8k

slime calls it with the group's samples and stores the returned list as their rewards, in order. Without it,
`--group-rm` with `--rm-type remote_rm` posts each sample on its own (the route answers both). Each sample is
sent as slime's remote_rm sends it ({"prompt", "response", "label"}); a label object picks its own scorer.
The answer is a list of numbers (an error is 0), or of detail objects when `--rm-url` ends in `?detail=true`
(with `--reward-key score`). Settings from the environment (slime passes no kwargs): RL_REWARDS_AUTH_TOKEN,
RL_REWARDS_TIMEOUT_S, RL_REWARDS_MAX_RETRIES, RL_REWARDS_MAX_RETRY_WAIT_S.
"""

import asyncio
from typing import Any, List, Sequence

from rl_rewards._client import post_json
from rl_rewards._config import resolve_config


async def group_rm(args: Any, samples: Sequence[Any], **kwargs: Any) -> List[Any]:
    """slime's batch `custom_rm(args, samples) -> list`; raises (as slime's remote_rm does) when the service refuses."""
    config = resolve_config({})
    body = [{"prompt": s.prompt, "response": s.response, "label": s.label} for s in samples]
    answer = await asyncio.get_running_loop().run_in_executor(None, post_json, args.rm_url, body, config)
    if not isinstance(answer, list) or len(answer) != len(samples):
        raise RuntimeError(f"{args.rm_url}: expected {len(samples)} rewards, got {str(answer)[:200]}")
    return answer
