// class-validator DTOs for everything an extension sends back. Unknown fields are tolerated (like Go's decoder);
// wrong types and missing required fields are reported.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBase64,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { RESPONSE_STATUSES, type PatchType, type ResponseStatus } from './constants';

export class CommonResponseDto {
  @IsOptional() @IsString() apiVersion!: string;
  @IsOptional() @IsString() kind!: string;
  @IsIn(RESPONSE_STATUSES as ResponseStatus[]) status!: ResponseStatus;
  @IsOptional() @IsString() message?: string;
}

export class CommonRetryResponseDto extends CommonResponseDto {
  // Go decodes a missing int32 as 0; a wrong type is an error.
  @IsOptional() @IsInt() retryAfterSeconds!: number;
}

export class PatchDto {
  // patchType semantics are checked when the patch is applied; here only the wire type.
  @IsOptional() @IsString() patchType?: PatchType;
  @IsOptional() @IsString() @ValidateIf((_o, v) => v !== '') @IsBase64() patch?: string;
}

export class GroupVersionHookDto {
  @IsString() apiVersion!: string;
  @IsString() hook!: string;
}

export class ExtensionHandlerDto {
  @IsString() name!: string;
  @IsObject() @ValidateNested() @Type(() => GroupVersionHookDto) requestHook!: GroupVersionHookDto;
  @IsOptional() @IsInt() timeoutSeconds?: number;
  @IsOptional() @IsString() failurePolicy?: string;
}

export class DiscoveryResponseDto extends CommonResponseDto {
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ExtensionHandlerDto)
  handlers!: ExtensionHandlerDto[];
}

export class CanUpdateMachineResponseDto extends CommonResponseDto {
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PatchDto) machinePatch?: PatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PatchDto) infrastructureMachinePatch?: PatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PatchDto) bootstrapConfigPatch?: PatchDto;
}

export class CanUpdateMachineSetResponseDto extends CommonResponseDto {
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PatchDto) machineSetPatch?: PatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PatchDto) infrastructureMachineTemplatePatch?: PatchDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => PatchDto) bootstrapConfigTemplatePatch?: PatchDto;
}

export class UpdateMachineResponseDto extends CommonRetryResponseDto {}
