package ctyun

// The request and answer bodies of the five ECS OpenAPI v4 calls the provider makes. Only
// the fields it uses are declared.

// Paths of the calls.
const (
	pathCreate      = "/v4/ecs/create-instance"
	pathQueryUUID   = "/v4/order/query-uuid"
	pathList        = "/v4/ecs/list-instances"
	pathUnsubscribe = "/v4/ecs/unsubscribe-instance"
	pathFlavors     = "/v4/ecs/flavor/list"
)

// statusOK is the statusCode of a successful answer; anything else is an error.
const statusOK = 800

// envelope is every answer's frame; ReturnObj is decoded into the call's own type.
type envelope[T any] struct {
	StatusCode  int    `json:"statusCode"`
	ErrorCode   string `json:"errorCode"`
	Error       string `json:"error"`
	Message     string `json:"message"`
	Description string `json:"description"`
	ReturnObj   T      `json:"returnObj"`
}

// label is an instance label; Kashi's tags become labels.
type label struct {
	Key   string `json:"labelKey"`
	Value string `json:"labelValue"`
}

// networkCard is the one NIC of a new instance.
type networkCard struct {
	IsMaster bool   `json:"isMaster"`
	SubnetID string `json:"subnetID"`
}

// createRequest is the body of create-instance (pay-as-you-go: OnDemand).
type createRequest struct {
	ClientToken     string        `json:"clientToken"`
	RegionID        string        `json:"regionID"`
	AzName          string        `json:"azName,omitempty"`
	InstanceName    string        `json:"instanceName"`
	DisplayName     string        `json:"displayName"`
	FlavorID        string        `json:"flavorID"`
	ImageType       int           `json:"imageType"`
	ImageID         string        `json:"imageID"`
	BootDiskType    string        `json:"bootDiskType"`
	BootDiskSize    int           `json:"bootDiskSize"`
	VpcID           string        `json:"vpcID"`
	OnDemand        bool          `json:"onDemand"`
	NetworkCardList []networkCard `json:"networkCardList"`
	ExtIP           string        `json:"extIP"`
	SecGroupList    []string      `json:"secGroupList,omitempty"`
	UserData        string        `json:"userData,omitempty"`
	LabelList       []label       `json:"labelList"`
}

// orderAnswer is what create-instance and unsubscribe-instance return.
type orderAnswer struct {
	MasterOrderID string `json:"masterOrderID"`
	MasterOrderNO string `json:"masterOrderNO"`
	RegionID      string `json:"regionID"`
}

// orderStatus is query-uuid's returnObj: the instance ids once the order is done.
type orderStatus struct {
	ResourceUUID []string `json:"resourceUUID"`
	OrderStatus  string   `json:"orderStatus"`
	ResourceType string   `json:"resourceType"`
}

// listRequest is the body of list-instances.
type listRequest struct {
	RegionID     string  `json:"regionID"`
	AzName       string  `json:"azName,omitempty"`
	InstanceName string  `json:"instanceName,omitempty"`
	PageNo       int     `json:"pageNo"`
	PageSize     int     `json:"pageSize"`
	LabelList    []label `json:"labelList,omitempty"`
}

// listAnswer is list-instances' returnObj.
type listAnswer struct {
	CurrentCount int        `json:"currentCount"`
	TotalCount   int        `json:"totalCount"`
	TotalPage    int        `json:"totalPage"`
	Results      []instance `json:"results"`
}

// instance is one instance of list-instances.
type instance struct {
	InstanceID     string  `json:"instanceID"`
	InstanceName   string  `json:"instanceName"`
	DisplayName    string  `json:"displayName"`
	InstanceStatus string  `json:"instanceStatus"`
	AzName         string  `json:"azName"`
	CreatedTime    string  `json:"createdTime"`
	Flavor         flavor  `json:"flavor"`
	LabelList      []label `json:"labelList"`
}

// unsubscribeRequest is the body of unsubscribe-instance.
type unsubscribeRequest struct {
	ClientToken string `json:"clientToken"`
	RegionID    string `json:"regionID"`
	InstanceID  string `json:"instanceID"`
}

// flavorAnswer is flavor/list's returnObj.
type flavorAnswer struct {
	TotalCount int      `json:"totalCount"`
	Results    []flavor `json:"results"`
}

// flavor is one machine type; VideoMemSize is each GPU's memory in GB.
type flavor struct {
	FlavorID     string `json:"flavorID"`
	FlavorName   string `json:"flavorName"`
	FlavorCPU    int    `json:"flavorCPU"`
	FlavorRAM    int    `json:"flavorRAM"`
	FlavorType   string `json:"flavorType"`
	GPUType      string `json:"gpuType"`
	GPUCount     int    `json:"gpuCount"`
	GPUVendor    string `json:"gpuVendor"`
	VideoMemSize int    `json:"videoMemSize"`
	// BaseBandwidth is the flavor's guaranteed (baseline) network bandwidth in Gb/s.
	BaseBandwidth float64 `json:"baseBandwidth"`
}
