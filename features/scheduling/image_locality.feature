# ImageLocality is in v1.35's default profile with weight 1 (the seed documents
# do not cover it).  Outcomes and totals are kube-scheduler v1.35.4's (checked
# with ../shared/oracle/bin/kr-oracle).
Feature: ImageLocality prefers nodes that already have the pod's images (v1.35)

  # Totals 489 (n1), 488 (n2), 473 (n3): the busybox init container's image tips it.
  Scenario: a node with more of the pod's images wins
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi images(nginx:1.27=500Mi, busybox:latest=30Mi)
      node n2 cpu=4 memory=8Gi images(nginx:1.27=700Mi)
      node n3 cpu=4 memory=8Gi
      pod p {
        container p image=nginx:1.27 requests(cpu=1)
        init-container i image=busybox
      }
      expect pod p running on n1
      """
    Then the expectations hold

  # n2 is declared first, so its 700Mi is the size kept for nginx:1.27 on every
  # node: 495 and 495, a tie that goes to the first node in the node order.
  Scenario: the size kept for an image is the one reported first
    Given the scenario:
      """
      node n3 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi images(nginx:1.27=700Mi)
      node n1 cpu=4 memory=8Gi images(nginx:1.27=500Mi, busybox:latest=30Mi)
      pod p {
        container p image=nginx:1.27 requests(cpu=1)
        init-container i image=busybox
      }
      expect pod p running on n2
      """
    Then the expectations hold

  Scenario: an untagged image is :latest, which no node has here
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi images(nginx:1.27=900Mi)
      pod q image=nginx requests(cpu=1)
      pod r image=nginx:1.27 requests(cpu=1)
      expect pod q running on n1
      expect pod r running on n2
      """
    Then the expectations hold
