Feature: Expectations over a window of time
  `expect always … from T1 to T2` holds when the expectation after `always`
  holds at every instant the simulation stops at from T1 to T2 (both
  included); `expect never …` when it holds at none of them. Pod counts
  compare with =, >=, <=, >, < or !=; `ready` counts pods that are Ready and
  not terminating (what a budget counts as healthy).

  # CTL-EXPECT-1
  Scenario: CTL-EXPECT-1 a drain under a budget never drops below the budget's minimum
    # the replacements have no room (n1 is cordoned, n2 full): the budget holds
    # the drain back, and it never finishes
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=8Gi
      pods web-[1..2] on n1 labels(app=web) cpu=1
      pods web-[3..4] on n2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) max-unavailable=1
      at 10s drain node n1
      run until 5m
      expect always pods app=web ready count>=3 from 0s to 5m
      expect never pods web-* ready count<3 from 0s to 5m
      expect drain n1 blocked by web-2
      """
    Then the expectations hold

  # CTL-EXPECT-1
  Scenario: CTL-EXPECT-1 without a budget the same drain drops below it, and the report says when
    Given the scenario:
      """
      nodes n[1..2] cpu=2 memory=8Gi
      pods web-[1..2] on n1 labels(app=web) cpu=1
      pods web-[3..4] on n2 labels(app=web) cpu=1
      at 10s drain node n1
      expect always pods app=web ready count>=3 from 0s to 5m
      """
    Then the scenario's expectation on line 5 fails with "at 10s: 2 pod(s) ready, expected >=3"

  # CTL-EXPECT-1
  Scenario: CTL-EXPECT-1 a window's expectation names what the scenario declares
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      expect always pdb default/none disruptions-allowed=0 from 0s to 1m
      """
    Then the scenario is refused with "unknown pdb 'default/none'"

  # CTL-EXPECT-1
  Scenario: CTL-EXPECT-1 a window is about states, not about what happened
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod web on n1 cpu=1
      at 10s evict pod web
      expect always eviction web status 200 from 0s to 1m
      """
    Then the scenario is refused with "'expect always eviction' is not a state that holds at an instant"

  # CTL-EXPECT-1
  Scenario: CTL-EXPECT-1 windows over pod states and budgets
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      deployment web replicas=2 labels(app=web) cpu=1
      pdb web-pdb selector(app=web) min-available=1
      at 1m unready pod web-1
      at 2m ready pod web-1
      expect always pods web-* ready count=2 from 0s to 59s
      expect always pods web-* ready count=2 from 2m to 3m
      expect never pods web-* ready count=2 from 1m to 1m59s
      expect always pdb web-pdb disruptions-allowed=0 from 1m to 1m59s
      expect always pod web-2 running from 0s to 3m
      """
    Then the expectations hold

  # CTL-EXPECT-1
  Scenario: CTL-EXPECT-1 a window is written without 'at' and ends after it starts
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      pod web on n1 cpu=1
      expect always pod web running from 2m to 1m
      """
    Then the scenario is refused with "the window ends (1m) before it starts (2m)"
