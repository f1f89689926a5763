# Seed 003 §2: assigning pods to nodes.
Feature: Assigning pods to nodes (seed 003 §2)

  # B-003-02-01
  # B-003-02-02
  Scenario: B-003-02-02 nodeSelector places the pod only on nodes with every listed label
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi
      node n2 cpu=4 memory=8Gi labels(example.com.node-restriction.kubernetes.io/fips=true, disktype=ssd)
      pod secure node-selector(example.com.node-restriction.kubernetes.io/fips=true, disktype=ssd)
      pod nowhere node-selector(example.com.node-restriction.kubernetes.io/fips=true, disktype=hdd)
      expect pod secure running on n2
      expect pod nowhere pending reason="0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
      """
    Then the expectations hold

  # B-003-02-03
  # B-003-02-05
  Scenario: B-003-02-05 with-node-affinity requires an antarctica zone and prefers another-node-label-key
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=antarctica-east1)
      node n2 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=antarctica-west1, another-node-label-key=another-node-label-value)
      node n3 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=europe-west1, another-node-label-key=another-node-label-value)
      pod with-node-affinity {
        affinity node required topology.kubernetes.io/zone in (antarctica-east1, antarctica-west1)
        affinity node preferred weight=1 another-node-label-key=another-node-label-value
      }
      pod only-europe {
        affinity node required topology.kubernetes.io/zone in (antarctica-east1, antarctica-west1), topology.kubernetes.io/zone=europe-west1
      }
      expect pod with-node-affinity running on n2
      expect pod only-europe pending reason="3 node(s) didn't match Pod's node affinity/selector"
      """
    Then the expectations hold

  # B-003-02-04
  Scenario: B-003-02-04 a preferred term no node matches does not keep the pod pending
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pod flexible {
        affinity node preferred weight=100 gpu=true
      }
      expect pod flexible running on n1
      """
    Then the expectations hold

  # B-003-02-06
  # B-003-02-24
  # B-003-02-25
  Scenario: B-003-02-06 the operators In, NotIn, Exists, DoesNotExist, Gt and Lt
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(cores=2, tier=a)
      node n2 cpu=4 memory=8Gi labels(cores=8, gpu=true)
      node n3 cpu=4 memory=8Gi labels(cores=abc)
      pod gt {
        affinity node required cores > 4
      }
      pod lt {
        affinity node required cores < 4
      }
      pod exists {
        affinity node required gpu
      }
      pod anti {
        affinity node required tier notin (a), !gpu
      }
      pod in {
        affinity node required tier in (a, b)
      }
      pod ored {
        affinity node required cores > 100 | tier in (a)
      }
      expect pod gt running on n2
      expect pod lt running on n1
      expect pod exists running on n2
      expect pod anti running on n3
      expect pod in running on n1
      expect pod ored running on n1
      """
    Then the expectations hold

  # B-003-02-07
  Scenario: B-003-02-07 the weights of every preferred term a node satisfies are summed
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(label-1=key-1)
      node n2 cpu=4 memory=8Gi labels(label-2=key-2)
      node n3 cpu=4 memory=8Gi labels(label-1=key-1, label-2=key-2)
      pod both {
        affinity node preferred weight=40 label-1=key-1
        affinity node preferred weight=50 label-2=key-2
      }
      expect pod both running on n3
      """
    Then the expectations hold

  # B-003-02-08
  Scenario: B-003-02-08 with-affinity-preferred-weight: label-2 (weight 50) beats label-1 (weight 1)
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(kubernetes.io/os=linux, label-1=key-1)
      node n2 cpu=4 memory=8Gi labels(kubernetes.io/os=linux, label-2=key-2)
      node n3 cpu=4 memory=8Gi labels(kubernetes.io/os=windows, label-2=key-2)
      pod with-affinity-preferred-weight {
        affinity node required kubernetes.io/os=linux
        affinity node preferred weight=1 label-1=key-1
        affinity node preferred weight=50 label-2=key-2
      }
      expect pod with-affinity-preferred-weight running on n2
      """
    Then the expectations hold

  # B-003-02-09
  Scenario: B-003-02-09 the profile's addedAffinity applies on top of the pod's own node affinity
    Given the scenario:
      """
      config scheduler "added-affinity.yaml"
      node n1 cpu=4 memory=8Gi labels(disk=ssd)
      node n2 cpu=4 memory=8Gi labels(scheduler-profile=foo)
      node n3 cpu=4 memory=8Gi labels(scheduler-profile=foo, disk=ssd)
      pod any
      pod ssd node-selector(disk=ssd)
      pod hdd node-selector(disk=hdd)
      expect pod any running on n2
      expect pod ssd running on n3
      expect pod hdd pending reason="0/3 nodes are available: 1 node(s) didn't match scheduler-enforced node affinity, 2 node(s) didn't match Pod's node affinity/selector."
      """
    Then the expectations hold

  # B-003-02-10
  # B-003-02-13
  Scenario: B-003-02-13 with-pod-affinity goes to any node of Zone V, which runs a security=S1 pod
    Given the scenario:
      """
      node v1 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=V)
      node v2 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=V)
      node r1 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=R)
      pod s1 on v1 labels(security=S1)
      pod with-pod-affinity {
        affinity pod required security=S1 topology=topology.kubernetes.io/zone
      }
      pod wants-s3 {
        affinity pod required security=S3 topology=topology.kubernetes.io/zone
      }
      expect pod with-pod-affinity running on v2
      expect pod wants-s3 pending reason="0/3 nodes are available: 3 node(s) didn't match pod affinity rules."
      """
    Then the expectations hold

  # B-003-02-14
  Scenario: B-003-02-14 preferred anti-affinity (weight 100) to security=S2 avoids Zone R while it has an S2 pod
    Given the scenario:
      """
      node r1 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=R)
      node v1 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=V)
      pod s2 on r1 labels(security=S2) requests(cpu=100m)
      pod s1 on v1 labels(security=S1) requests(cpu=2)
      pod avoid {
        anti-affinity pod preferred weight=100 security=S2 topology=topology.kubernetes.io/zone
      }
      at 10s delete pod s2 grace-period=0s
      at 10s create pod later {
        anti-affinity pod preferred weight=100 security=S2 topology=topology.kubernetes.io/zone
      }
      expect pod avoid running on v1
      expect pod later running on r1
      """
    Then the expectations hold

  # B-003-02-11
  Scenario: B-003-02-11 affinity terms match pods in the pod's own namespace unless namespaces are listed
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      pod default/db on n2 labels(app=db)
      pod team/own {
        affinity pod required app=db topology=kubernetes.io/hostname
      }
      pod team/listed {
        affinity pod required app=db topology=kubernetes.io/hostname namespaces(default)
      }
      expect pod team/own pending reason="didn't match pod affinity rules"
      expect pod team/listed running on n2
      """
    Then the expectations hold

  # B-003-02-17
  Scenario: B-003-02-17 namespaceSelector adds the namespaces whose labels match; an empty one matches all
    Given the scenario:
      """
      namespace prod labels(env=prod)
      nodes n[1..3] cpu=4 memory=8Gi
      pod prod/db on n3 labels(app=db)
      pod team/by-label {
        affinity pod required app=db topology=kubernetes.io/hostname namespace-selector(env=prod)
      }
      pod team/all {
        affinity pod required app=db topology=kubernetes.io/hostname namespace-selector()
      }
      pod team/other {
        affinity pod required app=db topology=kubernetes.io/hostname namespace-selector(env=dev) namespaces(default)
      }
      expect pod team/by-label running on n3
      expect pod team/all running on n3
      expect pod team/other pending
      """
    Then the expectations hold

  # B-003-02-12
  Scenario: B-003-02-12 the first pod of a self-affine group is scheduled, the others follow it
    Given the scenario:
      """
      nodes n[1..3] cpu=4 memory=8Gi
      deployment group replicas=3 labels(app=group) {
        affinity pod required app=group topology=kubernetes.io/hostname
      }
      pod lonely labels(app=x) {
        affinity pod required app=nobody topology=kubernetes.io/hostname
      }
      expect pods group-* running count=3
      expect pod group-1 running on n1
      expect pod group-2 running on n1
      expect pod group-3 running on n1
      expect pod lonely pending reason="didn't match pod affinity rules"
      """
    Then the expectations hold

  # B-003-02-15
  Scenario: B-003-02-15 pod affinity selectors use In, NotIn, Exists and DoesNotExist
    Given the scenario:
      """
      nodes n[1..4] cpu=4 memory=8Gi
      pod a on n1 labels(app=a)
      pod t on n2 labels(tier=t)
      pod b on n3 labels(app=b, tier=t)
      pod avoid-in-exists {
        anti-affinity pod required app in (a, b) topology=kubernetes.io/hostname
        anti-affinity pod required tier topology=kubernetes.io/hostname
      }
      pod near-notin {
        affinity pod required app notin (a), tier topology=kubernetes.io/hostname
      }
      pod near-dne {
        affinity pod required app, !tier topology=kubernetes.io/hostname
      }
      expect pod avoid-in-exists running on n4
      expect pod near-notin running on n2
      expect pod near-dne running on n1
      """
    Then the expectations hold

  # B-003-02-16
  Scenario: B-003-02-16 an empty topologyKey is refused
    Given the scenario:
      """
      nodes n[1..2] cpu=4 memory=8Gi
      pod a {
        anti-affinity pod required app=a topology=""
      }
      """
    Then the scenario is refused with "'' is not a valid label key"

  # B-003-02-18
  Scenario: B-003-02-18 matchLabelKeys count only pods of the same revision
    Given the scenario:
      """
      node n1 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=a)
      node n2 cpu=4 memory=8Gi labels(topology.kubernetes.io/zone=b)
      pod db-v1 on n1 labels(app=database, pod-template-hash=v1)
      pod db-v2 on n2 labels(app=database, pod-template-hash=v2)
      pod app-v2 labels(app=app, pod-template-hash=v2) {
        affinity pod required app=database topology=topology.kubernetes.io/zone match-label-keys(pod-template-hash)
      }
      pod app-v1 labels(app=app, pod-template-hash=v1) {
        affinity pod required app=database topology=topology.kubernetes.io/zone match-label-keys(pod-template-hash)
      }
      expect pod app-v2 running on n2
      expect pod app-v1 running on n1
      """
    Then the expectations hold

  # B-003-02-19
  Scenario: B-003-02-19 mismatchLabelKeys keep a tenant out of node pools running another tenant
    Given the scenario:
      """
      node p1 cpu=4 memory=8Gi labels(node-pool=one)
      node p2 cpu=4 memory=8Gi labels(node-pool=two)
      node p3 cpu=4 memory=8Gi labels(node-pool=three)
      pod daemon on p3 labels(app=agent)
      pod red-1 on p1 labels(tenant=red)
      pod green-1 on p2 labels(tenant=green)
      pod blue-1 labels(tenant=blue) {
        affinity pod required tenant topology=node-pool match-label-keys(tenant)
        anti-affinity pod required tenant topology=node-pool mismatch-label-keys(tenant)
      }
      pod red-2 labels(tenant=red) {
        affinity pod required tenant topology=node-pool match-label-keys(tenant)
        anti-affinity pod required tenant topology=node-pool mismatch-label-keys(tenant)
      }
      # blue-1 is the first blue pod (its affinity lets it start anywhere); pools
      # one and two run other tenants, the agent without a tenant label does not block.
      expect pod red-2 running on p1
      expect pod blue-1 running on p3
      """
    Then the expectations hold

  # B-003-02-20
  # B-003-02-21
  Scenario: B-003-02-21 redis-cache and web-server end up one cache and one web server per node
    Given the scenario:
      """
      nodes node-[1..3] cpu=4 memory=8Gi
      deployment redis-cache replicas=3 labels(app=store) {
        anti-affinity pod required app=store topology=kubernetes.io/hostname
      }
      at 1s create deployment web-server replicas=3 labels(app=web-store) {
        anti-affinity pod required app=web-store topology=kubernetes.io/hostname
        affinity pod required app=store topology=kubernetes.io/hostname
      }
      expect pod redis-cache-1 running on node-1
      expect pod redis-cache-2 running on node-2
      expect pod redis-cache-3 running on node-3
      expect pod web-server-1 running on node-1
      expect pod web-server-2 running on node-2
      expect pod web-server-3 running on node-3
      """
    Then the expectations hold

  # B-003-02-22
  # B-003-02-23
  Scenario: B-003-02-22 nodeName bypasses the scheduler; the kubelet says whether CPU was short
    Given the scenario:
      """
      node kube-01 cpu=2 memory=8Gi taints(dedicated=x:NoSchedule)
      node kube-02 cpu=8 memory=8Gi
      at 1s create pod nginx on kube-01 requests(cpu=1)
      at 2s create pod big on kube-01 requests(cpu=2)
      expect pod nginx running on kube-01
      expect pod big rejected reason="OutOfcpu"
      """
    Then the expectations hold

  # B-003-02-23
  Scenario: B-003-02-23 a nodeName naming no node is refused
    Given the scenario:
      """
      node kube-01 cpu=2 memory=8Gi
      at 1s create pod nginx on kube-99
      """
    Then the scenario is refused with "unknown node 'kube-99'"
