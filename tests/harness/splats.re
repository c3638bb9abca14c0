BUG:
WARNING:
KASAN:
UBSAN:
possible recursive locking
possible circular locking
inconsistent lock state
suspicious RCU usage
RCU stall
rcu: INFO:
detected stalls
Oops
general protection fault
blocked for more than
Kernel panic
lockdep: 
usercopy:
