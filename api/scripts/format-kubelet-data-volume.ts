/**
 * The script that formats the kubelet data volume (gardener v1.91.4
 * pkg/nodeagent/bootstrap/templates/scripts/format-kubelet-data-volume.tpl.sh), shared by the node
 * agent's `bootstrap` and the legacy executor: find the one unpartitioned, unformatted, unmounted
 * whole disk of exactly the configured size, make an ext4 file system labelled KUBEDEV with quotas,
 * copy /var/lib/kubelet onto it and mount it there (where the OSC's var-lib-kubelet.mount mounts it
 * on every later boot). Idempotent: nothing happens once KUBEDEV exists.
 */
export const KUBELET_DATA_VOLUME_LABEL = 'KUBEDEV';
export const KUBELET_DATA_VOLUME_MOUNT_POINT = '/var/lib/kubelet';

export function formatKubeletDataVolumeScript(sizeInBytes: number): string {
  if (!Number.isSafeInteger(sizeInBytes) || sizeInBytes <= 0)
    throw new RangeError(`invalid kubelet data volume size ${sizeInBytes}`);
  return `#!/bin/bash
set -o errexit
set -o nounset
set -o pipefail

readonly label=${KUBELET_DATA_VOLUME_LABEL}
readonly size=${sizeInBytes}
readonly mount_point=${KUBELET_DATA_VOLUME_MOUNT_POINT}
readonly copy_dir=/tmp/varlibkubeletcp

if blkid --label "$label" >/dev/null 2>&1; then
  echo "Kubelet data device with label $label already exists"
  exit 0
fi

echo "Matching kubelet data device by size : $size"
device=""
while IFS= read -r line; do
  name="$(sed -n 's/.*NAME="\\([^"]*\\)".*/\\1/p' <<<"$line")"
  [[ -n "$name" ]] || continue
  if lsblk -dbsnP -o NAME,MOUNTPOINT,TYPE | grep -E "NAME=\\"\${name}[^\\"]*\\".*MOUNTPOINT=\\"/.*TYPE=\\"part\\"" >/dev/null; then
    continue
  fi
  device="$name"
  break
done < <(lsblk -dbsnP -o NAME,PARTTYPE,FSTYPE,SIZE,PATH,TYPE | grep 'TYPE="disk"' | grep -E 'PARTTYPE="".*FSTYPE="".*SIZE="${sizeInBytes}"' || true)

if [[ -z "$device" ]]; then
  echo "No kubelet data device found"
  exit 1
fi

echo "Formatting /dev/$device with label $label"
mkfs.ext4 -L "$label" -O quota -E lazy_itable_init=0,lazy_journal_init=0,quotatype=usrquota:grpquota:prjquota "/dev/$device"
mkdir -p "$mount_point" "$copy_dir"
mount LABEL="$label" "$copy_dir"
# "dir/." copies the content, dot files included, and an empty directory (a fresh node) as well.
cp -a "$mount_point/." "$copy_dir/"
umount "$copy_dir"
mount LABEL="$label" "$mount_point" -o defaults,prjquota,errors=remount-ro
echo "Kubelet data device /dev/$device is mounted on $mount_point"
`;
}
