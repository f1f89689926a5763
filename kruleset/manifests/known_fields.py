"""The fields of the Kubernetes v1.35 objects and component configurations kruleset reads.

Written in :mod:`.schema`'s notation.  Objects are described down to the
levels kruleset reads (a pod's spec, containers, affinity, tolerations…);
subtrees it never reads (volume sources, probes, security contexts, most of
``status``) accept anything, so a dump from a newer cluster is refused only
for a field at a level kruleset interprets.
"""

from __future__ import annotations

from typing import Any

from .schema import ANY, MapOf, Unsimulated

__all__ = ["DRA_OBJECTS", "KUBELET_CONFIGURATION", "OBJECTS", "PLUGIN_ARGS",
           "SCHEDULER_CONFIGURATION"]


def _fields(names: str, **typed: Any) -> dict[str, Any]:
    """``{name: ANY}`` for each space-separated name, then the typed ones."""
    out: dict[str, Any] = dict.fromkeys(names.split(), ANY)
    out.update(typed)
    return out


OBJECT_META = _fields(
    "name generateName namespace selfLink uid resourceVersion generation creationTimestamp "
    "deletionTimestamp deletionGracePeriodSeconds labels annotations ownerReferences "
    "finalizers managedFields")
LABEL_SELECTOR = {"matchLabels": ANY,
                  "matchExpressions": [_fields("key operator values")]}
NODE_SELECTOR_TERM = {"matchExpressions": [_fields("key operator values")],
                      "matchFields": [_fields("key operator values")]}
NODE_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [NODE_SELECTOR_TERM]},
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": ANY, "preference": NODE_SELECTOR_TERM}],
}
POD_AFFINITY_TERM = _fields("namespaces topologyKey matchLabelKeys mismatchLabelKeys",
                            labelSelector=LABEL_SELECTOR, namespaceSelector=LABEL_SELECTOR)
POD_AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": [POD_AFFINITY_TERM],
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": ANY, "podAffinityTerm": POD_AFFINITY_TERM}],
}
TOLERATION = _fields("key operator value effect tolerationSeconds")
SPREAD = _fields("maxSkew topologyKey whenUnsatisfiable minDomains nodeAffinityPolicy "
                 "nodeTaintsPolicy matchLabelKeys", labelSelector=LABEL_SELECTOR)
RESOURCES = _fields("limits requests claims")
CONTAINER = _fields(
    "name image command args workingDir envFrom env resizePolicy restartPolicy "
    "restartPolicyRules volumeMounts volumeDevices livenessProbe readinessProbe startupProbe "
    "lifecycle terminationMessagePath terminationMessagePolicy imagePullPolicy securityContext "
    "stdin stdinOnce tty",
    resources=RESOURCES, ports=[_fields("name hostPort containerPort protocol hostIP")])
VOLUME = _fields(
    "name hostPath secret nfs iscsi glusterfs persistentVolumeClaim rbd flexVolume cinder "
    "cephfs flocker downwardAPI fc azureFile configMap vsphereVolume quobyte azureDisk "
    "photonPersistentDisk projected portworxVolume scaleIO storageos csi ephemeral image "
    "gcePersistentDisk awsElasticBlockStore gitRepo",
    emptyDir=_fields("medium sizeLimit"))
POD_SPEC = _fields(
    "restartPolicy activeDeadlineSeconds dnsPolicy serviceAccountName serviceAccount "
    "automountServiceAccountToken nodeName hostNetwork hostPID hostIPC shareProcessNamespace "
    "securityContext imagePullSecrets hostname subdomain schedulerName hostAliases "
    "priorityClassName priority dnsConfig readinessGates runtimeClassName enableServiceLinks "
    "preemptionPolicy overhead setHostnameAsFQDN os hostUsers resourceClaims "
    "terminationGracePeriodSeconds nodeSelector hostnameOverride workloadRef "
    "ephemeralContainers",
    volumes=[VOLUME], containers=[CONTAINER], initContainers=[CONTAINER],
    affinity={"nodeAffinity": NODE_AFFINITY, "podAffinity": POD_AFFINITY,
              "podAntiAffinity": POD_AFFINITY},
    tolerations=[TOLERATION], topologySpreadConstraints=[SPREAD],
    schedulingGates=[{"name": ANY}],
    resources=Unsimulated(RESOURCES, "pod-level resources are not simulated; the "
                                     "containers' requests and limits are used"))
POD_STATUS = _fields(
    "observedGeneration phase conditions message reason nominatedNodeName hostIP hostIPs podIP "
    "podIPs startTime initContainerStatuses containerStatuses qosClass "
    "ephemeralContainerStatuses resize resourceClaimStatuses extendedResourceClaimStatus "
    "allocatedResources resources")
TEMPLATE = {"metadata": OBJECT_META, "spec": POD_SPEC}


JOB_SPEC = _fields(
    "parallelism completions activeDeadlineSeconds podFailurePolicy "
    "backoffLimit backoffLimitPerIndex maxFailedIndexes manualSelector "
    "completionMode podReplacementPolicy suspend",
    selector=LABEL_SELECTOR, template=TEMPLATE,
    successPolicy=Unsimulated(ANY, "a Job's successPolicy is not simulated: the Job "
                                   "completes when its completions succeed"),
    ttlSecondsAfterFinished=Unsimulated(ANY, "ttlSecondsAfterFinished is not simulated: "
                                             "a finished Job stays"),
    managedBy=Unsimulated(ANY, "a Job's managedBy is not simulated: the built-in Job "
                               "controller manages it"))
_STORAGE = ("StatefulSet storage (volumeClaimTemplates, persistentVolumeClaimRetentionPolicy) "
            "is not simulated")


def _object(spec: Any = ANY, status: Any = ANY, **top: Any) -> dict[str, Any]:
    return {"apiVersion": ANY, "kind": ANY, "metadata": OBJECT_META, "spec": spec,
            "status": status, **top}


OBJECTS: dict[str, dict[str, Any]] = {
    "Pod": _object(POD_SPEC, POD_STATUS),
    "Node": _object(
        _fields("podCIDR podCIDRs providerID configSource externalID unschedulable",
                taints=[_fields("key value effect timeAdded")]),
        _fields("capacity allocatable phase conditions addresses daemonEndpoints nodeInfo "
                "images volumesInUse volumesAttached config runtimeHandlers features "
                "declaredFeatures")),
    "Namespace": _object(_fields("finalizers"), _fields("phase conditions")),
    "PriorityClass": {"apiVersion": ANY, "kind": ANY, "metadata": OBJECT_META, "value": ANY,
                      "globalDefault": ANY, "description": ANY, "preemptionPolicy": ANY},
    "RuntimeClass": {"apiVersion": ANY, "kind": ANY, "metadata": OBJECT_META, "handler": ANY,
                     "overhead": _fields("podFixed"),
                     "scheduling": _fields("nodeSelector tolerations")},
    "PodDisruptionBudget": _object(
        _fields("minAvailable maxUnavailable unhealthyPodEvictionPolicy",
                selector=LABEL_SELECTOR)),
    "ElasticQuota": _object(_fields("min max")),
    "Deployment": _object(_fields(
        "replicas minReadySeconds revisionHistoryLimit paused",
        strategy=_fields("type", rollingUpdate=_fields("maxSurge maxUnavailable")),
        progressDeadlineSeconds=Unsimulated(ANY, "no Progressing condition and no "
                                                 "ProgressDeadlineExceeded: the rollout "
                                                 "goes on", 600),
        selector=LABEL_SELECTOR, template=TEMPLATE)),
    "ReplicaSet": _object(_fields("replicas minReadySeconds", selector=LABEL_SELECTOR,
                                  template=TEMPLATE)),
    "ReplicationController": _object(_fields("replicas minReadySeconds selector",
                                             template=TEMPLATE)),
    "StatefulSet": _object(_fields(
        "replicas serviceName podManagementPolicy updateStrategy "
        "revisionHistoryLimit minReadySeconds ordinals",
        selector=LABEL_SELECTOR, template=TEMPLATE,
        volumeClaimTemplates=Unsimulated(ANY, _STORAGE),
        persistentVolumeClaimRetentionPolicy=Unsimulated(ANY, _STORAGE))),
    "DaemonSet": _object(_fields("updateStrategy minReadySeconds revisionHistoryLimit",
                                 selector=LABEL_SELECTOR, template=TEMPLATE)),
    "Job": _object(JOB_SPEC),
    # Not simulated, but its jobs' spec is checked as a Job's (kubectl --validate=strict).
    "CronJob": _object(_fields(
        "schedule timeZone startingDeadlineSeconds concurrencyPolicy suspend "
        "successfulJobsHistoryLimit failedJobsHistoryLimit",
        jobTemplate={"metadata": OBJECT_META, "spec": JOB_SPEC})),
    "LimitRange": _object({"limits": [_fields(
        "type max min default defaultRequest maxLimitRequestRatio")]}),
    "ResourceQuota": _object(_fields("hard scopes scopeSelector"), _fields("hard used")),
}

# --- DRA (resource.k8s.io) ----------------------------------------------------------------------

# Fields of v1.35's DRA types for features kruleset does not simulate, each behind its
# own feature gate: given, they are a warning naming them.
_TAINTS = "device taints and tolerations (DRADeviceTaints) are not simulated"
_PARTITIONS = ("partitionable devices (DRAPartitionableDevices: shared counters, per-device "
               "node selection) are not simulated")
_CONSUMABLE = "consumable capacity (DRAConsumableCapacity) is not simulated"
_BINDING = "binding conditions (DRADeviceBindingConditions) are not simulated"
_EXTENDED = "extended resources backed by devices (DRAExtendedResource) are not simulated"


def _dra_object(spec: Any, status: Any = None) -> dict[str, Any]:
    """A DRA object: only ResourceClaim has a status."""
    out = {"apiVersion": ANY, "kind": ANY, "metadata": OBJECT_META, "spec": spec}
    if status is not None:
        out["status"] = status
    return out


_CEL_SELECTORS = [{"cel": {"expression": ANY}}]
_OPAQUE = _fields("driver parameters")
_NODE_SELECTOR = {"nodeSelectorTerms": [NODE_SELECTOR_TERM]}
_POOL = _fields("name generation resourceSliceCount")


def _device_fields(capacity: Any) -> dict[str, Any]:
    """What a device says about itself (v1, v1beta2: the device; v1beta1: its ``basic``)."""
    return {"attributes": MapOf(_fields("int bool string version")), "capacity": capacity,
            "consumesCounters": Unsimulated(ANY, _PARTITIONS),
            "nodeName": Unsimulated(ANY, _PARTITIONS),
            "nodeSelector": Unsimulated(ANY, _PARTITIONS),
            "allNodes": Unsimulated(ANY, _PARTITIONS),
            "taints": Unsimulated(ANY, _TAINTS),
            "bindsToNode": Unsimulated(ANY, _BINDING),
            "bindingConditions": Unsimulated(ANY, _BINDING),
            "bindingFailureConditions": Unsimulated(ANY, _BINDING),
            "allowMultipleAllocations": Unsimulated(ANY, _CONSUMABLE)}


_CAPACITY = MapOf({"value": ANY, "requestPolicy": Unsimulated(ANY, _CONSUMABLE)})


def _slice_spec(device: Any) -> dict[str, Any]:
    return {"driver": ANY, "pool": _POOL, "nodeName": ANY, "nodeSelector": _NODE_SELECTOR,
            "allNodes": ANY, "devices": [device],
            "perDeviceNodeSelection": Unsimulated(ANY, _PARTITIONS),
            "sharedCounters": Unsimulated(ANY, _PARTITIONS)}


# A request's own fields (v1, v1beta2: under ``exactly``; v1beta1: inline), and a
# ``firstAvailable`` subrequest's (no adminAccess).
_SUBREQUEST = {"name": ANY, "deviceClassName": ANY, "selectors": _CEL_SELECTORS,
               "allocationMode": ANY, "count": ANY,
               "tolerations": Unsimulated(ANY, _TAINTS),
               "capacity": Unsimulated(ANY, _CONSUMABLE)}
_EXACT = {**{k: v for k, v in _SUBREQUEST.items() if k != "name"}, "adminAccess": ANY}
_REQUEST = {"name": ANY, "exactly": _EXACT, "firstAvailable": [_SUBREQUEST]}
_INLINE_REQUEST = {"name": ANY, **_EXACT, "firstAvailable": [_SUBREQUEST]}


def _claim_spec(request: Any, **older: Any) -> dict[str, Any]:
    return {"devices": {
        "requests": [request],
        "constraints": [{"requests": ANY, "matchAttribute": ANY,
                         "distinctAttribute": Unsimulated(ANY, _CONSUMABLE)}],
        "config": [{"requests": ANY, "opaque": _OPAQUE}]}, **older}


def _claim_status(older: bool = False) -> dict[str, Any]:
    """A claim's status; ``older``: with the fields v1alpha3 had before 1.32 dropped them."""
    allocation = {"devices": {"results": [_fields(
                      "request driver pool device adminAccess tolerations bindingConditions "
                      "bindingFailureConditions shareID consumedCapacity")], "config": ANY},
                  "nodeSelector": ANY, "allocationTimestamp": ANY}
    status = {"allocation": allocation, "reservedFor": [_fields("apiGroup resource name uid")],
              "devices": ANY}
    if older:
        allocation["controller"] = ANY
        status["deallocationRequested"] = ANY
    return status


def _dra_kinds(device: Any, request: Any, claim_spec: Any | None = None,
               claim_status: Any | None = None, **class_spec: Any) -> dict[str, Any]:
    """The four DRA kinds of one API version, from what differs between versions."""
    spec = claim_spec or _claim_spec(request)
    return {
        "ResourceSlice": _dra_object(_slice_spec(device)),
        "DeviceClass": _dra_object({"selectors": _CEL_SELECTORS, "config": [{"opaque": _OPAQUE}],
                                    "extendedResourceName": Unsimulated(ANY, _EXTENDED),
                                    **class_spec}),
        "ResourceClaim": _dra_object(spec, claim_status or _claim_status()),
        "ResourceClaimTemplate": _dra_object({"metadata": OBJECT_META, "spec": spec}),
    }


_V1 = _dra_kinds({"name": ANY, **_device_fields(_CAPACITY)}, _REQUEST)
# DRA_OBJECTS[kind][version]: every version manifests.dra reads.  v1alpha3, no longer
# served by v1.35, is read as the seed wrote it: v1beta1's shape with a capacity of plain
# quantities, and the fields of its first release (1.31) that later ones dropped.
DRA_OBJECTS: dict[str, dict[str, dict[str, Any]]] = {
    kind: {"v1": _V1[kind], "v1beta2": _V1[kind]} for kind in _V1}
for _version, _kinds in (
        ("v1beta1", _dra_kinds({"name": ANY, "basic": _device_fields(_CAPACITY)},
                               _INLINE_REQUEST)),
        ("v1alpha3", _dra_kinds({"name": ANY, "basic": _device_fields(ANY)}, _INLINE_REQUEST,
                                _claim_spec(_INLINE_REQUEST, controller=ANY),
                                _claim_status(older=True),
                                suitableNodes=ANY))):
    for _kind, _schema in _kinds.items():
        DRA_OBJECTS[_kind][_version] = _schema

# --- KubeSchedulerConfiguration -----------------------------------------------------------------

_PLUGIN_SET = {"enabled": [{"name": str, "weight": int}], "disabled": [{"name": str}]}
_WEIGHTED = [{"name": str, "weight": int}]
_ARGS_HEAD = {"apiVersion": str, "kind": str}
_TYPED_SELECTOR = {"matchLabels": MapOf(str),
                   "matchExpressions": [{"key": str, "operator": str, "values": [str]}]}
_TYPED_TERM = {"matchExpressions": [{"key": str, "operator": str, "values": [str]}],
               "matchFields": [{"key": str, "operator": str, "values": [str]}]}

# pluginConfig args per plugin (upstream's *Args types, v1).
PLUGIN_ARGS: dict[str, dict[str, Any]] = {
    "NodeResourcesFit": {**_ARGS_HEAD, "ignoredResources": [str],
                         "ignoredResourceGroups": [str],
                         "scoringStrategy": {
                             "type": str, "resources": _WEIGHTED,
                             "requestedToCapacityRatio": {
                                 "shape": [{"utilization": int, "score": int}]}}},
    "NodeResourcesBalancedAllocation": {**_ARGS_HEAD, "resources": _WEIGHTED},
    "PodTopologySpread": {**_ARGS_HEAD, "defaultingType": str, "defaultConstraints": [{
        "maxSkew": int, "topologyKey": str, "whenUnsatisfiable": str, "minDomains": int,
        "nodeAffinityPolicy": str, "nodeTaintsPolicy": str, "matchLabelKeys": [str],
        "labelSelector": _TYPED_SELECTOR}]},
    "InterPodAffinity": {**_ARGS_HEAD, "hardPodAffinityWeight": int,
                         "ignorePreferredTermsOfExistingPods": bool},
    "NodeAffinity": {**_ARGS_HEAD, "addedAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [_TYPED_TERM]},
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": int, "preference": _TYPED_TERM}]}},
    "DefaultPreemption": {**_ARGS_HEAD, "minCandidateNodesPercentage": int,
                          "minCandidateNodesAbsolute": int},
    "VolumeBinding": {**_ARGS_HEAD, "bindTimeoutSeconds": Unsimulated(int, "volumes are not "
                                                                           "simulated"),
                      "shape": Unsimulated([{"utilization": int, "score": int}],
                                           "volumes are not simulated")},
    "CapacityScheduling": {**_ARGS_HEAD, "kubeConfigPath": Unsimulated(
        str, "kruleset reads the cluster from files, not from an API server")},
}

SCHEDULER_CONFIGURATION: dict[str, Any] = {
    "apiVersion": str, "kind": str,
    "parallelism": Unsimulated(int, "the simulation schedules one pod at a time"),
    "leaderElection": ANY, "clientConnection": ANY, "healthzBindAddress": ANY,
    "metricsBindAddress": ANY, "enableProfiling": ANY, "enableContentionProfiling": ANY,
    "percentageOfNodesToScore": int,
    "podInitialBackoffSeconds": int,
    "podMaxBackoffSeconds": int,
    "extenders": Unsimulated(ANY, "scheduler extenders are not called"),
    "delayCacheUntilActive": ANY,
    "profiles": [{"schedulerName": str, "percentageOfNodesToScore": int,
                  "plugins": {p: _PLUGIN_SET for p in (
                      "multiPoint", "queueSort", "preEnqueue", "preFilter", "filter",
                      "postFilter", "preScore", "score", "reserve", "permit", "preBind",
                      "bind", "postBind")},
                  "pluginConfig": [{"name": str, "args": ANY}]}],
}

# --- KubeletConfiguration ---------------------------------------------------------------------

_KUBELET_READ = _fields(
    "evictionHard evictionSoft evictionSoftGracePeriod evictionMinimumReclaim "
    "evictionPressureTransitionPeriod evictionMaxPodGracePeriod enforceNodeAllocatable "
    "mergeDefaultEvictionSettings systemReserved kubeReserved apiVersion kind")
# Settings that change what the simulated kubelet decides but are not simulated.
_KUBELET_UNSIMULATED = {
    "maxPods": "a node's pods capacity comes from the node (status.capacity.pods or pods=)",
    "podsPerCore": "a node's pods capacity comes from the node",
    "reservedSystemCPUs": "give the reservation as systemReserved",
    "imageGCHighThresholdPercent": "image garbage collection is not simulated",
    "imageGCLowThresholdPercent": "image garbage collection is not simulated",
    "cpuManagerPolicy": "CPU pinning is not simulated",
    "topologyManagerPolicy": "NUMA alignment is not simulated",
    "memoryManagerPolicy": "NUMA alignment is not simulated",
    "shutdownGracePeriod": "graceful node shutdown is not simulated",
    "shutdownGracePeriodCriticalPods": "graceful node shutdown is not simulated",
    "shutdownGracePeriodByPodPriority": "graceful node shutdown is not simulated",
    "systemReservedCgroup": "cgroup enforcement is not simulated",
    "kubeReservedCgroup": "cgroup enforcement is not simulated",
    "localStorageCapacityIsolation": "local storage is always accounted",
}
_KUBELET_OTHER = (
    "enableServer staticPodPath podLogsDir syncFrequency fileCheckFrequency httpCheckFrequency "
    "staticPodURL staticPodURLHeader address port readOnlyPort tlsCertFile tlsPrivateKeyFile "
    "tlsCipherSuites tlsMinVersion rotateCertificates serverTLSBootstrap authentication "
    "authorization registryPullQPS registryBurst imagePullCredentialsVerificationPolicy "
    "preloadedImagesVerificationAllowlist eventRecordQPS eventBurst enableDebuggingHandlers "
    "enableContentionProfiling healthzPort healthzBindAddress oomScoreAdj clusterDomain "
    "clusterDNS streamingConnectionIdleTimeout nodeStatusUpdateFrequency "
    "nodeStatusReportFrequency nodeLeaseDurationSeconds imageMinimumGCAge imageMaximumGCAge "
    "volumeStatsAggPeriod kubeletCgroups systemCgroups cgroupRoot cgroupsPerQOS cgroupDriver "
    "cpuManagerPolicyOptions cpuManagerReconcilePeriod memoryManagerPolicy "
    "topologyManagerScope topologyManagerPolicyOptions qosReserved runtimeRequestTimeout "
    "hairpinMode podCIDR podPidsLimit resolvConf runOnce cpuCFSQuota cpuCFSQuotaPeriod "
    "nodeStatusMaxImages maxOpenFiles contentType kubeAPIQPS kubeAPIBurst "
    "serializeImagePulls maxParallelImagePulls configMapAndSecretChangeDetectionStrategy "
    "protectKernelDefaults makeIPTablesUtilChains iptablesMasqueradeBit iptablesDropBit "
    "featureGates failSwapOn memorySwap containerLogMaxSize containerLogMaxFiles "
    "containerLogMaxWorkers containerLogMonitorInterval allowedUnsafeSysctls "
    "volumePluginDir providerID kernelMemcgNotification logging enableSystemLogHandler "
    "enableSystemLogQuery enableProfilingHandler enableDebugFlagsHandler seccompDefault "
    "memoryThrottlingFactor registerWithTaints registerNode tracing "
    "localStorageCapacityIsolation containerRuntimeEndpoint imageServiceEndpoint "
    "failCgroupV1 userNamespaces crashLoopBackOff singleProcessOOMKill "
    "imagePullCredentialsVerificationPolicy reservedMemory")

KUBELET_CONFIGURATION: dict[str, Any] = {
    **_fields(_KUBELET_OTHER),
    **{k: Unsimulated(ANY, why) for k, why in _KUBELET_UNSIMULATED.items()},
    **_KUBELET_READ,
}
