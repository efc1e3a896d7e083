// KubeadmConfigSpec (upstream api/bootstrap/kubeadm/v1beta2/kubeadmconfig_types.go), shared by KubeadmConfig,
// KubeadmConfigTemplate and KubeadmControlPlane. The kubeadm configuration structs are kept opaque: controllers only
// copy and compare them.
import { Type, type Static } from '@sinclair/typebox';
import { AtomicList, Enum, MapList, Obj, OptBool, OptInt32, OptString, Opaque } from '../schema/k8s';

// Descriptions follow the Go doc comments of upstream's kubeadmconfig_types.go, reworded.
export const KubeadmFileSchema = Obj(
  {
    path: Type.String({ minLength: 1, maxLength: 512, description: 'Full path of the file on the host.' }),
    owner: OptString({ minLength: 1, maxLength: 256, description: 'Owner of the file as user:group, e.g. root:root.' }),
    permissions: OptString({
      minLength: 1,
      maxLength: 16,
      description: 'File mode in octal, e.g. 0640; cloud-init uses 0644 when unset.',
    }),
    encoding: Type.Optional(
      Enum(['base64', 'gzip', 'gzip+base64'], {
        description: 'How the content is encoded: base64, gzip or gzip+base64; plain text when unset.',
      }),
    ),
    append: OptBool({ description: 'True appends the content to an existing file instead of replacing it.' }),
    content: OptString({ minLength: 1, maxLength: 10240, description: 'The file content, inline.' }),
    contentFrom: Type.Optional(
      Obj(
        {
          secret: Obj(
            {
              name: Type.String({ minLength: 1, maxLength: 253, description: 'Name of the Secret.' }),
              key: Type.String({ minLength: 1, maxLength: 256, description: 'Key in the Secret holding the content.' }),
            },
            { description: "A Secret in the KubeadmConfig's namespace holding the content." },
          ),
        },
        { description: 'Where to read the content from instead of content; exclusive with content.' },
      ),
    ),
  },
  { description: 'A file written to the host before kubeadm runs.' },
);

const Commands = (when: string) =>
  Type.Optional(
    AtomicList(Type.String({ minLength: 1, maxLength: 10240 }), {
      maxItems: 1000,
      description: `Commands run ${when}, one shell command each.`,
    }),
  );

// Kubeadm's own configuration structs, kept opaque (see the file header).
export const kubeadmOpaque = (description: string) => Type.Optional(Opaque({ description }));

export const KubeadmConfigSpecSchema = Obj(
  {
    clusterConfiguration: kubeadmOpaque(
      "kubeadm's ClusterConfiguration: cluster-wide settings (API server, etcd, networking, image repository).",
    ),
    initConfiguration: kubeadmOpaque("kubeadm's InitConfiguration, used by kubeadm init on the first control plane."),
    joinConfiguration: kubeadmOpaque("kubeadm's JoinConfiguration, used by kubeadm join on every other host."),
    files: Type.Optional(
      MapList(KubeadmFileSchema, ['path'], {
        maxItems: 200,
        description: 'Files to write on the host, keyed by path (at most 200).',
      }),
    ),
    diskSetup: kubeadmOpaque('Partitions and file systems to create on the host disks.'),
    mounts: Type.Optional(
      AtomicList(AtomicList(Type.String()), {
        maxItems: 100,
        description: 'Mount points to set up, each as a list of fstab fields (device, mount point, ...).',
      }),
    ),
    bootCommands: Commands('very early in boot, on every boot (cloud-init bootcmd)'),
    preKubeadmCommands: Commands('before kubeadm'),
    postKubeadmCommands: Commands('after kubeadm'),
    users: Type.Optional(
      AtomicList(Opaque(), { maxItems: 100, description: 'Users to create on the host (name, groups, ssh keys...).' }),
    ),
    ntp: kubeadmOpaque('NTP servers and whether NTP is enabled on the host.'),
    format: Type.Optional(
      Enum(['cloud-config', 'ignition'], {
        description: 'Format of the bootstrap data: cloud-config (the default) or ignition.',
      }),
    ),
    verbosity: OptInt32({ description: 'kubeadm log verbosity (-v); kubeadm uses its default when unset.' }),
    ignition: kubeadmOpaque('Ignition specific settings, used when format is ignition.'),
  },
  { description: 'How a host is bootstrapped with kubeadm.' },
);
export type KubeadmConfigSpec = Static<typeof KubeadmConfigSpecSchema>;
