"""Stand-in for ray: verl.utils.ray_utils imports it at the top; get_event_loop, the one function taken, does not use it."""
