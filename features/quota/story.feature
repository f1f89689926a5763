# Seed 004 §6: two tenants share two 8-CPU workers.  Tenant A (ns-a) has
# min 6 / max 10 CPU, tenant B (ns-b) min 12 / max 14.  The Deployments carry
# labels as the seed's manifests do (app: nginx1-1, …): upstream's default
# PodTopologySpread spreads a ReplicaSet's pods by its selector, and that
# decides where the second notebook goes, and so which Job pod is preempted.
Feature: Elastic quota user story (seed 004 §6)

  # B-004-06-01
  # B-004-06-02
  # B-004-06-03
  # B-004-06-04
  # B-004-01-04
  # B-004-02-02
  Scenario: B-004-06-04 tenant B reclaims: a Job pod of A is preempted, the notebooks keep running
    Given the scenario:
      """
      nodes worker-[1..2] cpu=8 memory=32Gi
      priorityclass priority-class-for-notebook value=1000000 preemption=Never
      quota ns-a min(cpu=6) max(cpu=10)
      quota ns-b min(cpu=12) max(cpu=14)
      at 0s  create deployment ns-a/job replicas=2 labels(app=nginx1-1) requests(cpu=2) limits(cpu=2)
      at 10s create deployment ns-b/job-1 replicas=1 labels(app=nginx1-2) requests(cpu=3) limits(cpu=3)
      at 15s expect pods ns-a/job-* running count=2
      at 15s expect pod ns-b/job-1-1 running
      at 15s expect quota ns-a used(cpu=4)
      at 15s expect quota ns-b used(cpu=3)
      at 20s create deployment ns-a/notebook replicas=2 priorityclass=priority-class-for-notebook labels(app=nginx2-1) requests(cpu=2) limits(cpu=2)
      at 25s expect pods ns-a/notebook-* running count=2
      at 25s expect quota ns-a used(cpu=8)
      at 30s create deployment ns-b/job-2 replicas=1 labels(app=nginx2-2) requests(cpu=5) limits(cpu=5)
      at 30s expect pod ns-a/job-2 preempted by ns-b/job-2-1
      at 30s expect pod ns-b/job-2-1 nominated worker-2
      expect pods ns-a/notebook-* running count=2
      expect pods ns-a/job-* preempted count=1
      expect pod ns-b/job-2-1 running on worker-2
      expect quota ns-a used(cpu=6)
      expect quota ns-b used(cpu=8)
      """
    Then the expectations hold

  # B-004-06-05
  Scenario: B-004-06-05 the preempted Job's replacement stays Pending: no room, and A is above its min
    Given the scenario:
      """
      nodes worker-[1..2] cpu=8 memory=32Gi
      priorityclass priority-class-for-notebook value=1000000 preemption=Never
      quota ns-a min(cpu=6) max(cpu=10)
      quota ns-b min(cpu=12) max(cpu=14)
      at 0s  create deployment ns-a/job replicas=2 labels(app=nginx1-1) requests(cpu=2) limits(cpu=2)
      at 10s create deployment ns-b/job-1 replicas=1 labels(app=nginx1-2) requests(cpu=3) limits(cpu=3)
      at 20s create deployment ns-a/notebook replicas=2 priorityclass=priority-class-for-notebook labels(app=nginx2-1) requests(cpu=2) limits(cpu=2)
      at 30s create deployment ns-b/job-2 replicas=1 labels(app=nginx2-2) requests(cpu=5) limits(cpu=5)
      expect pod ns-a/job-3 pending reason="0/2 nodes are available: 2 Insufficient cpu."
      expect pod ns-a/job-3 pending reason="No victims found on node worker-1 for preemptor pod job-3"
      expect pod ns-a/job-3 pending reason="No victims found on node worker-2 for preemptor pod job-3"
      """
    Then the expectations hold

  # B-004-06-04
  Scenario: B-004-06-04 the same story with 7.5 CPU allocatable per worker
    Given the scenario:
      """
      nodes worker-[1..2] cpu=8 memory=32Gi reserved(cpu=500m)
      priorityclass priority-class-for-notebook value=1000000 preemption=Never
      quota ns-a min(cpu=6) max(cpu=10)
      quota ns-b min(cpu=12) max(cpu=14)
      at 0s  create deployment ns-a/job replicas=2 labels(app=nginx1-1) requests(cpu=2) limits(cpu=2)
      at 10s create deployment ns-b/job-1 replicas=1 labels(app=nginx1-2) requests(cpu=3) limits(cpu=3)
      at 20s create deployment ns-a/notebook replicas=2 priorityclass=priority-class-for-notebook labels(app=nginx2-1) requests(cpu=2) limits(cpu=2)
      at 30s create deployment ns-b/job-2 replicas=1 labels(app=nginx2-2) requests(cpu=5) limits(cpu=5)
      expect pods ns-a/notebook-* running count=2
      expect pods ns-a/job-* preempted count=1
      expect pod ns-b/job-2-1 running
      expect pod ns-a/job-3 pending
      expect quota ns-a used(cpu=6)
      """
    Then the expectations hold

  # B-004-05-01
  # B-004-06-04
  Scenario: B-004-05-01 the seed's scheduler configuration enables CapacityScheduling explicitly
    Given the scenario:
      """
      config scheduler "capacity-scheduling.yaml"
      nodes worker-[1..2] cpu=8 memory=32Gi
      priorityclass priority-class-for-notebook value=1000000 preemption=Never
      include "elasticquotas.yaml"
      at 0s  create deployment ns-a/job replicas=2 labels(app=nginx1-1) requests(cpu=2) limits(cpu=2)
      at 10s create deployment ns-b/job-1 replicas=1 labels(app=nginx1-2) requests(cpu=3) limits(cpu=3)
      at 20s create deployment ns-a/notebook replicas=2 priorityclass=priority-class-for-notebook labels(app=nginx2-1) requests(cpu=2) limits(cpu=2)
      at 30s create deployment ns-b/job-2 replicas=1 labels(app=nginx2-2) requests(cpu=5) limits(cpu=5)
      expect pods ns-a/notebook-* running count=2
      expect pod ns-a/job-2 preempted by ns-b/job-2-1
      expect pod ns-b/job-2-1 running
      expect pod ns-a/job-3 pending reason="No victims found on node worker-1"
      """
    Then the expectations hold
